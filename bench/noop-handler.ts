// The no-op handler module the emulator benchmark runs in the sandbox, referenced by path as `dev` and
// `invoke` reference handlers (the sandbox builds the event for it in its environment, as Lambda's
// runtime parses it).
import type { KafkaBatchResponse } from '../lib/kafka-event/types.ts';

export async function handler(): Promise<KafkaBatchResponse> {
  return { batchItemFailures: [] };
}
