/* The gcc side of the call-overhead benchmark: an empty function with the workloads' signature,
 * so "Java -> jffi -> native" can be measured on its own. */
typedef unsigned char u8;
typedef unsigned long long u64;

u64 native_empty(const u8 *data, u64 len) { (void)data; (void)len; return 0; }
