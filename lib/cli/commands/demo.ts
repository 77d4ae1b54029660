import type { Command } from 'commander';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker } from '../../broker/broker.ts';

/** `kafka-lambda demo`: the main job (`npm start`). */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'start the embedded broker, produce sample orders, consume them in a group, show the offsets',
    )
    .action(async () => {
      console.log('starting the embedded Apache Kafka broker…');
      await using broker = await startBroker();
      console.log(`broker ${broker.version} serving at ${broker.bootstrapServers}`);
      const kafka = new Kafka({
        clientId: 'kafka-lambda-demo',
        brokers: [broker.bootstrapServers],
        logLevel: logLevel.ERROR,
      });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }], waitForLeaders: true });
      const producer = kafka.producer();
      await producer.connect();
      const orders = Array.from({ length: 30 }, (_, i) => ({
        key: `customer-${i % 7}`,
        value: JSON.stringify({ orderId: `o-${1000 + i}`, amount: 10 + i }),
      }));
      await producer.send({ topic: 'orders', messages: orders });
      await producer.disconnect();
      console.log(`produced ${orders.length} orders to topic "orders" (3 partitions)`);

      const consumer = kafka.consumer({
        groupId: 'orders-demo',
        sessionTimeout: 6_000,
        heartbeatInterval: 500,
      });
      await consumer.connect();
      await consumer.subscribe({ topic: 'orders', fromBeginning: true });
      let consumed = 0;
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            eachMessage: async () => {
              if (++consumed === orders.length) resolve();
            },
          })
          .catch(reject);
      });
      await consumer.disconnect();
      const [offsets] = await admin.fetchOffsets({ groupId: 'orders-demo', topics: ['orders'] });
      await admin.disconnect();
      console.log(`consumed ${consumed} orders in group "orders-demo"; committed offsets:`);
      for (const p of offsets?.partitions.sort((a, b) => a.partition - b.partition) ?? []) {
        console.log(`  orders-${p.partition}: ${p.offset}`);
      }
      console.log('stopping the broker');
    });
}
