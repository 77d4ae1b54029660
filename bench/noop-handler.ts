// The no-op handler module the emulator benchmark runs in the sandbox, referenced by path as `dev` and
// `invoke` reference handlers (the sandbox parses the event for it, as Lambda's runtime does).
import type { KafkaBatchResponse } from '../lib/kafka-event/types.ts';

export async function handler(): Promise<KafkaBatchResponse> {
  return { batchItemFailures: [] };
}
