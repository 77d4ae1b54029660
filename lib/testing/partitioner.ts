/**
 * Kafka's murmur2 hash (the Java client's `Utils.murmur2`), as a signed 32-bit integer.
 *
 * @example
 * ```ts
 * murmur2(Buffer.from('21')); // -973932308
 * ```
 */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const tail = length & ~3;
  for (let i = 0; i < tail; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = length & 3;
  if (rest >= 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) h = Math.imul(h ^ data[tail]!, m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * The partition Kafka's default partitioner (Java client, kafkajs `DefaultPartitioner`) picks for a
 * record with this key, so samples place keyed records where a real producer would.
 *
 * @example
 * ```ts
 * partitionForKey(Buffer.from('customer-7'), 3); // same partition a Java producer would choose
 * ```
 */
export function partitionForKey(key: Uint8Array, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
