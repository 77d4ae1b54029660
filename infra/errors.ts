/**
 * The base of every error the CDK constructs and the app throw at synth time (a configuration Lambda or
 * CloudFormation would refuse, caught before deploying). Accepts `ErrorOptions`, so a wrapped error keeps
 * its `cause`; `name` is the concrete class's.
 *
 * @example
 * ```ts
 * try {
 *   new KafkaConsumerFunction(stack, 'Orders', props);
 * } catch (error) {
 *   if (error instanceof KafkaLambdaCdkError) console.error(`${error.name}: ${error.message}`);
 * }
 * ```
 */
export class KafkaLambdaCdkError extends Error {
  /** The concrete class's name (`new.target.name`), such as `'KafkaConsumerConfigError'`. */
  override name: string;

  /**
   * `name` becomes the constructed class's name (`new.target.name`).
   *
   * @param message - What is wrong with the configuration, as synth reports it.
   * @param options - `cause`: the error that led to this one, if any.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
