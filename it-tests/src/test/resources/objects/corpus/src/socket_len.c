/* Socket filter without LD_ABS: reads only __sk_buff fields. */
#include "common.h"

SEC("socket")
int sock_len(struct __sk_buff *skb)
{
	return skb->len + skb->protocol + skb->pkt_type * 1000;
}
