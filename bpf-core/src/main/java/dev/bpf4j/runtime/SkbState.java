package dev.bpf4j.runtime;

/**
 * The {@code struct sk_buff} fields the skb helpers that move the packet read and write besides its bounds
 * ({@link PacketBuffer}): where the mac, network and transport headers start (absolute addresses; transport 0
 * while unset, as {@code skb_transport_header_was_set} says of a test-run skb), whether a tunnel header was
 * pushed ({@code skb->encapsulation}), and the out-of-band VLAN tag ({@code __vlan_hwaccel_put_tag}).
 * Helpers change it, engines never do.
 */
public final class SkbState {
    private long macHeader, networkHeader, transportHeader;
    /** skb->mac_len: 0 in a test run's skb until a helper calls skb_reset_mac_len. */
    private int macLen;
    private boolean encapsulation;
    private boolean vlanPresent;
    private int vlanTci, vlanProto;
    private boolean hashValid;

    SkbState(long macHeader, long networkHeader) {
        this.macHeader = macHeader;
        this.networkHeader = networkHeader;
    }

    public long macHeader() { return macHeader; }
    public long networkHeader() { return networkHeader; }
    /** 0 while unset. */
    public long transportHeader() { return transportHeader; }
    public boolean encapsulation() { return encapsulation; }
    public int macLen() { return macLen; }

    /** skb_reset_mac_len: network header less mac header. */
    public void resetMacLen() { macLen = (int) (networkHeader - macHeader); }
    public boolean vlanPresent() { return vlanPresent; }
    /** The hardware-accelerated tag's TCI (host order). */
    public int vlanTci() { return vlanTci; }
    /** Its protocol, host order (0x8100 or 0x88a8). */
    public int vlanProto() { return vlanProto; }

    public void setHeaders(long mac, long network, long transport) {
        this.macHeader = mac;
        this.networkHeader = network;
        this.transportHeader = transport;
    }

    public void setEncapsulation(boolean on) { this.encapsulation = on; }

    public void setVlan(boolean present, int proto, int tci) {
        this.vlanPresent = present;
        this.vlanProto = present ? proto : 0;
        this.vlanTci = present ? tci & 0xffff : 0;
    }

    /** skb->sw_hash || skb->l4_hash: skb->hash holds a hash (set or computed) that skb_get_hash returns as is. */
    public boolean hashValid() { return hashValid; }

    public void setHashValid(boolean valid) { this.hashValid = valid; }
}
