// A model of one Kafka event source mapping behind the Lambda API, for aws-sdk-client-mock: the states
// Lambda documents (Enabled → Disabling → Disabled → Enabling → Enabled), "in use" conflicts while a
// transition runs, throttling, and injected faults. Used by the replay orchestration tests.
import {
  type EventSourceMappingConfiguration,
  GetEventSourceMappingCommand,
  InvalidParameterValueException,
  LambdaClient,
  ResourceConflictException,
  ResourceInUseException,
  ResourceNotFoundException,
  TooManyRequestsException,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';

export type Fault = 'throttle' | 'conflict' | 'in-use' | 'invalid';

export interface EsmModelOptions {
  uuid: string;
  topic: string;
  groupId: string | undefined;
  state?: string;
  kind?: 'msk' | 'self-managed';
  /** Gets a transition takes before it settles (default 2). */
  transitionPolls?: number;
  /** Gets the Enabled → Disabled transition takes (default transitionPolls; Infinity = never). */
  disablePolls?: number;
  /** Called when a transition settles (e.g. to stop or start a real consumer standing in for the pollers). */
  onSettled?: (state: 'Enabled' | 'Disabled') => void | Promise<void>;
}

export interface EsmModel {
  lambda: LambdaClient;
  state(): string;
  /** Every state the mapping went through, in order. */
  history: string[];
  /** Update calls that the model accepted, with their Enabled value. */
  updates: boolean[];
  /** Make the next calls of a command fail (FIFO). */
  failNext(command: 'get' | 'update', ...faults: Fault[]): void;
}

function faultError(fault: Fault): Error {
  const $metadata = {};
  switch (fault) {
    case 'throttle':
      return new TooManyRequestsException({ message: 'Rate exceeded', $metadata });
    case 'conflict':
      return new ResourceConflictException({ message: 'An update is in progress', $metadata });
    case 'in-use':
      return new ResourceInUseException({
        message: 'The operation cannot be performed at this time. The resource is currently in use.',
        $metadata,
      });
    case 'invalid':
      return new InvalidParameterValueException({ message: 'Injected invalid parameter', $metadata });
  }
}

/** What the Lambda API answers (HTTP 404) for a UUID it has no mapping for. */
function notFound(): Error {
  return new ResourceNotFoundException({
    message: 'The resource you requested does not exist.',
    Type: 'User',
    $metadata: { httpStatusCode: 404 },
  });
}

export function modelEventSourceMapping(options: EsmModelOptions): EsmModel {
  const lambda = new LambdaClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const mock = mockClient(lambda);
  let state = options.state ?? 'Enabled';
  let polls = 0;
  const history = [state];
  const updates: boolean[] = [];
  const faults = { get: [] as Fault[], update: [] as Fault[] };
  const set = (next: string) => {
    state = next;
    polls = 0;
    history.push(next);
  };
  const describe = (): EventSourceMappingConfiguration => ({
    UUID: options.uuid,
    State: state,
    Topics: [options.topic],
    FunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:orders',
    ...(options.kind === 'self-managed'
      ? { SelfManagedKafkaEventSourceConfig: { ConsumerGroupId: options.groupId } }
      : {
          EventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/uuid',
          AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: options.groupId },
        }),
  });

  mock.on(GetEventSourceMappingCommand).callsFake(async (input: { UUID?: string }) => {
    const fault = faults.get.shift();
    if (fault) throw faultError(fault);
    if (input.UUID !== options.uuid) throw notFound();
    if (state === 'Disabling' || state === 'Enabling') {
      polls++;
      const needed =
        state === 'Disabling'
          ? (options.disablePolls ?? options.transitionPolls ?? 2)
          : (options.transitionPolls ?? 2);
      if (polls >= needed) {
        const settled = state === 'Disabling' ? 'Disabled' : 'Enabled';
        set(settled);
        await options.onSettled?.(settled);
      }
    }
    return describe();
  });
  mock.on(UpdateEventSourceMappingCommand).callsFake(async (input: { UUID?: string; Enabled?: boolean }) => {
    const fault = faults.update.shift();
    if (fault) throw faultError(fault);
    if (input.UUID !== options.uuid) throw notFound();
    if (state !== 'Enabled' && state !== 'Disabled') throw faultError('in-use');
    updates.push(input.Enabled === true);
    if (input.Enabled === false && state === 'Enabled') set('Disabling');
    if (input.Enabled === true && state === 'Disabled') set('Enabling');
    return describe();
  });

  return {
    lambda,
    state: () => state,
    history,
    updates,
    failNext: (command, ...more) => faults[command].push(...more),
  };
}
