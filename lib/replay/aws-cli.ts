// The AWS CLI commands that replay messages give an operator, for a trigger a replay may have left paused.

/**
 * The AWS CLI command that enables a mapping again, for the messages that tell an operator how to
 * resume a trigger a replay may have left paused.
 *
 * @example
 * ```ts
 * enableMappingCommand('14e0db71'); // 'aws lambda update-event-source-mapping --uuid 14e0db71 --enabled'
 * ```
 */
export function enableMappingCommand(uuid: string): string {
  return `aws lambda update-event-source-mapping --uuid ${uuid} --enabled`;
}

/**
 * How to resume a trigger that a failed replay could not put back to Enabled, by the state it was last
 * seen in (null: unknown). A mapping still in transition refuses updates until it settles.
 *
 * @example
 * ```ts
 * resumeMappingAdvice('14e0db71', 'Disabled'); // 'resume it: aws lambda update-event-source-mapping --uuid 14e0db71 --enabled'
 * ```
 */
export function resumeMappingAdvice(uuid: string, stateNow: string | null): string {
  const command = enableMappingCommand(uuid);
  if (stateNow === 'Disabled') return `resume it: ${command}`;
  if (stateNow === null) {
    return `check it (aws lambda get-event-source-mapping --uuid ${uuid}) and, if Disabled, resume it: ${command}`;
  }
  return `once it has left ${stateNow}, if it is Disabled, resume it: ${command}`;
}
