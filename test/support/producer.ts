import type { Kafka, Producer, ProducerConfig } from 'kafkajs';

/**
 * A producer that stores each record once. On a busy machine a send can time out after the broker stored
 * it, and a plain producer's retry then stores the records twice (tests counting deliveries saw 12 records
 * a partition, not 6). Idempotence (one request in flight, so a retry cannot reorder) makes the broker
 * drop the retried copy, as Kafka's own producers do by default since 3.0 (`enable.idempotence`).
 */
export function testProducer(kafka: Kafka, config: ProducerConfig = {}): Producer {
  return kafka.producer({ ...config, idempotent: true, maxInFlightRequests: 1 });
}
