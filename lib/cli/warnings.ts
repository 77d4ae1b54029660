/**
 * kafkajs 2.2.4 (the last release) schedules a timer with a negative delay on every connection,
 * which Node.js 23+ reports as a TimeoutNegativeWarning; harmless (Node treats it as 1 ms) but
 * noisy in a CLI. Every other warning is still printed.
 */
export function silenceKafkajsTimerWarning(): void {
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutNegativeWarning') return;
    for (const print of printers) print(warning);
  });
}
