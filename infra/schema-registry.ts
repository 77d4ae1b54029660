import { Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { defineOptions, nestedOptions, unchecked } from '../lib/options/options.ts';
import { KafkaLambdaCdkError } from './errors.ts';

/**
 * The schema registry of a Kafka trigger (Lambda's `SchemaRegistryConfig`, provisioned mode only): where
 * Lambda resolves each record's schema, which parts of the record it validates and deserializes, and in
 * which format it hands them to the function.
 * https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html
 *
 * - `glue`: an AWS Glue Schema Registry, by its ARN (`arn:aws:glue:REGION:ACCOUNT:registry/NAME`, or a token such as `CfnRegistry.attrArn`);
 *   the role gets `glue:GetRegistry` on it and `glue:GetSchemaVersion` on `*` (a record names its schema
 *   version by id only, which IAM cannot scope to a registry).
 * - `confluent`: a Confluent Cloud or self-managed Confluent Schema Registry by URL, with an optional
 *   Secrets Manager secret for basic auth (`{"username","password"}`) or mTLS (certificate chain and key),
 *   and an optional root CA secret; the role may read those secrets only, and decrypt them (as it reads the
 *   Kafka source's secrets).
 *
 * @example
 * const glue: SchemaRegistry = {
 *   kind: 'glue',
 *   registryArn: 'arn:aws:glue:eu-west-1:111122223333:registry/shop',
 *   eventRecordFormat: 'JSON',
 *   validate: ['VALUE'],
 * };
 * const confluent: SchemaRegistry = {
 *   kind: 'confluent',
 *   url: 'https://psrc-abc12.eu-west-1.aws.confluent.cloud',
 *   auth: { type: 'basic', secret: registrySecret },
 *   eventRecordFormat: 'SOURCE',
 *   validate: ['KEY', 'VALUE'],
 * };
 */
export type SchemaRegistry = SchemaRegistryLocation & {
  /** `JSON`: Lambda delivers the validated parts as JSON text; `SOURCE`: the original bytes without framing. */
  readonly eventRecordFormat: 'JSON' | 'SOURCE';
  /** The record parts Lambda validates (and, with `JSON`, deserializes). Each at most once. @default ['VALUE'] */
  readonly validate?: readonly SchemaValidationAttribute[] | undefined;
};

/**
 * A record part a schema registry validates.
 *
 * @example
 * const parts: SchemaValidationAttribute[] = ['KEY', 'VALUE'];
 */
export type SchemaValidationAttribute = 'KEY' | 'VALUE';

/**
 * Which registry, and how Lambda authenticates to it (see {@link SchemaRegistry}).
 *
 * @example
 * const where: SchemaRegistryLocation = { kind: 'glue', registryArn: 'arn:aws:glue:eu-west-1:111122223333:registry/shop' };
 */
export type SchemaRegistryLocation =
  | { readonly kind: 'glue'; readonly registryArn: string }
  | {
      readonly kind: 'confluent';
      /**
       * The registry's http(s) URL, without a user name or password (those go in `auth`), of the characters
       * CloudFormation's SchemaRegistryURI takes: letters, digits and `- / * : _ + = . @` (no query or `%`).
       */
      readonly url: string;
      /** @default no authentication */
      readonly auth?:
        | { readonly type: 'basic' | 'mtls'; readonly secret: secretsmanager.ISecret }
        | undefined;
      /** A root CA (X.509 PEM) secret, for a registry whose certificate a private CA signed. @default none */
      readonly rootCaCertificate?: secretsmanager.ISecret | undefined;
    };

/**
 * A schema registry setting Lambda would refuse, or whose IAM policy cannot be derived, caught at synth time.
 *
 * @example
 * try { schemaRegistryConfig(registry); } catch (e) { if (e instanceof SchemaRegistryConfigError) console.error(e.message); }
 */
export class SchemaRegistryConfigError extends KafkaLambdaCdkError {
  /** Always `'SchemaRegistryConfigError'`. */
  override readonly name = 'SchemaRegistryConfigError';
}

type GlueRegistry = Extract<SchemaRegistry, { kind: 'glue' }>;
type ConfluentRegistry = Extract<SchemaRegistry, { kind: 'confluent' }>;
const GLUE_OPTIONS = defineOptions<GlueRegistry>(
  { kind: unchecked, registryArn: unchecked, eventRecordFormat: unchecked, validate: unchecked },
  'schemaRegistry',
);
const CONFLUENT_AUTH_OPTIONS = defineOptions<NonNullable<ConfluentRegistry['auth']>>(
  { type: unchecked, secret: unchecked },
  'schemaRegistry.auth',
);
const CONFLUENT_OPTIONS = defineOptions<ConfluentRegistry>(
  {
    kind: unchecked,
    url: unchecked,
    auth: nestedOptions(() => CONFLUENT_AUTH_OPTIONS),
    rootCaCertificate: unchecked,
    eventRecordFormat: unchecked,
    validate: unchecked,
  },
  'schemaRegistry',
);

/**
 * The schema of a `schemaRegistry` prop: its keys checked by its `kind` (lib/options), its values, and a
 * kind or auth type no registry has, by {@link schemaRegistryConfig}.
 *
 * @example
 * const PROPS = defineOptions<{ schemaRegistry?: SchemaRegistry }>({ schemaRegistry: SCHEMA_REGISTRY_OPTIONS });
 */
export const SCHEMA_REGISTRY_OPTIONS = nestedOptions((registry) =>
  registry.kind === 'glue' ? GLUE_OPTIONS : registry.kind === 'confluent' ? CONFLUENT_OPTIONS : undefined,
);

// The registry kinds, and the Confluent authentications with the access config type each becomes:
// `satisfies` keeps them in step with the types, and a value not listed (an untyped JavaScript caller's)
// is refused by `shapeProblem` rather than taken for another shape.
const REGISTRY_KINDS = { glue: true, confluent: true } as const satisfies Record<
  SchemaRegistry['kind'],
  true
>;
const CONFLUENT_AUTH_TYPES = {
  basic: lambda.KafkaSchemaRegistryAccessConfigType.BASIC_AUTH,
  mtls: lambda.KafkaSchemaRegistryAccessConfigType.CLIENT_CERTIFICATE_TLS_AUTH,
} as const satisfies Record<
  NonNullable<ConfluentRegistry['auth']>['type'],
  lambda.KafkaSchemaRegistryAccessConfigType
>;

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function oneOf(names: object): string {
  return Object.keys(names)
    .map((name) => `"${name}"`)
    .join(', ');
}

/**
 * What is wrong with the registry's shape as untyped JavaScript may give it: not an object, a `kind` no
 * registry has (which would otherwise be read as Confluent), a Confluent `auth` whose `type` is neither
 * basic nor mTLS (which would otherwise be mTLS) or that carries no secret.
 */
function shapeProblem(registry: unknown): string | undefined {
  const kinds = oneOf(REGISTRY_KINDS);
  if (!isRecord(registry)) return `schemaRegistry must be an object with a kind (one of ${kinds})`;
  const { kind } = registry;
  if (typeof kind !== 'string' || !Object.hasOwn(REGISTRY_KINDS, kind))
    return `schemaRegistry.kind ${JSON.stringify(kind) ?? 'undefined'} is not a schema registry kind (one of ${kinds})`;
  if (kind !== 'confluent' || registry.auth === undefined) return undefined;
  const auth = registry.auth;
  const types = oneOf(CONFLUENT_AUTH_TYPES);
  if (!isRecord(auth)) return `schemaRegistry.auth must be an object with a type (one of ${types})`;
  if (typeof auth.type !== 'string' || !Object.hasOwn(CONFLUENT_AUTH_TYPES, auth.type))
    return `schemaRegistry.auth.type ${JSON.stringify(auth.type) ?? 'undefined'} is not an authentication a Confluent schema registry takes (one of ${types})`;
  if (!isRecord(auth.secret) || typeof auth.secret.secretArn !== 'string')
    return `schemaRegistry.auth.secret must be a Secrets Manager secret (ISecret) with auth type "${auth.type}"`;
  return undefined;
}

// SchemaRegistryURI's pattern, [a-zA-Z0-9-/*:_+=.@-]*, in CloudFormation (AWS::Lambda::EventSourceMapping
// SchemaRegistryConfig) and Lambda's API (KafkaSchemaRegistryConfig): a Confluent URL with a query (?, &),
// a percent escape or a space is refused at deploy time.
// https://docs.aws.amazon.com/lambda/latest/api/API_KafkaSchemaRegistryConfig.html
const SCHEMA_REGISTRY_URI_CHAR = /^[a-zA-Z0-9\-/*:_+=.@]$/;

// https://docs.aws.amazon.com/glue/latest/dg/glue-specifying-resource-arns.html (registry/NAME, schema/REGISTRY/SCHEMA)
const GLUE_REGISTRY_ARN = /^arn:aws[a-z-]*:glue:[a-z0-9-]+:\d{12}:registry\/[A-Za-z0-9_$#.-]{1,255}$/;

/**
 * The mapping's `schemaRegistryConfig` for {@link SchemaRegistry}, the statements its role needs (Glue),
 * and the secrets it must read (Confluent), which the caller grants with `grantSecretsRead` as it grants
 * the Kafka source's: a secret imported by name or partial ARN is granted as `…-??????`, and one whose key
 * is unknown gets `kms:Decrypt` limited to Secrets Manager decrypting it. Lambda needs both for a
 * registry's secrets: https://docs.aws.amazon.com/lambda/latest/dg/with-msk-permissions.html
 * Checks the registry up front: a known kind (and Confluent auth type, with its secret), a Glue registry
 * ARN (checked when literal), an http(s) Confluent URL without credentials and of the characters CloudFormation takes,
 * each validated part at most once.
 *
 * @throws SchemaRegistryConfigError naming what is wrong.
 * @example
 * const { config, statements, secrets } = schemaRegistryConfig(registry);
 * for (const statement of statements) role.addToPrincipalPolicy(statement);
 * grantSecretsRead(role, secrets);
 */
export function schemaRegistryConfig(registry: SchemaRegistry): {
  readonly config: lambda.ISchemaRegistry;
  readonly statements: iam.PolicyStatement[];
  readonly secrets: readonly secretsmanager.ISecret[];
  /** Acknowledges, for cdk-nag on the role that gets `statements`, the wildcards they hold (with reasons). */
  readonly acknowledge: (role: IConstruct) => void;
} {
  const problem = shapeProblem(registry);
  if (problem !== undefined) throw new SchemaRegistryConfigError(problem);
  const validate = registry.validate ?? ['VALUE'];
  // A lone string would be read letter by letter ("V" is not KEY or VALUE).
  if (!Array.isArray(validate)) {
    throw new SchemaRegistryConfigError(
      `schemaRegistry.validate must be a list of the parts to validate (KEY, VALUE or both), got ${JSON.stringify(validate) ?? 'undefined'}`,
    );
  }
  if (validate.length === 0) {
    throw new SchemaRegistryConfigError('schemaRegistry.validate needs KEY, VALUE or both');
  }
  for (const attribute of validate) {
    if (attribute !== 'KEY' && attribute !== 'VALUE') {
      throw new SchemaRegistryConfigError(
        `schemaRegistry.validate: "${String(attribute)}" is not KEY or VALUE`,
      );
    }
  }
  if (new Set(validate).size !== validate.length) {
    throw new SchemaRegistryConfigError('schemaRegistry.validate names a part more than once');
  }
  if (registry.eventRecordFormat !== 'JSON' && registry.eventRecordFormat !== 'SOURCE') {
    throw new SchemaRegistryConfigError(
      `schemaRegistry.eventRecordFormat: "${String(registry.eventRecordFormat)}" is not JSON or SOURCE`,
    );
  }
  const schemaValidationConfigs = validate.map((attribute) => ({
    attribute: lambda.KafkaSchemaValidationAttribute.of(attribute),
  }));
  const eventRecordFormat = lambda.EventRecordFormat.of(registry.eventRecordFormat);

  if (registry.kind === 'glue') {
    const arn = registry.registryArn;
    // A token (a registry made in the same app: `new glue.CfnRegistry(…).attrArn`) is resolved by
    // CloudFormation; only a literal can be checked here.
    if (typeof arn !== 'string' || (!Token.isUnresolved(arn) && !GLUE_REGISTRY_ARN.test(arn))) {
      throw new SchemaRegistryConfigError(
        'schemaRegistry.registryArn must be a Glue registry ARN (arn:aws:glue:REGION:ACCOUNT:registry/NAME)',
      );
    }
    // Lambda reads the registry, then the schema version each record names by its id alone. GetSchemaVersion
    // by SchemaVersionId cannot be scoped to a registry or schema: AWS's policy for Glue deserializers grants
    // it on "*" (https://docs.aws.amazon.com/glue/latest/dg/schema-registry-gs.html, "IAM examples for
    // deserializers"), and the Glue SerDe maintainers say the same (awslabs/aws-glue-schema-registry issues
    // 68 and 151): a grant on the registry and schema/<registry>/* is not enough.
    const statements = [
      new iam.PolicyStatement({ actions: ['glue:GetRegistry'], resources: [arn] }),
      new iam.PolicyStatement({ actions: ['glue:GetSchemaVersion'], resources: ['*'] }),
    ];
    return {
      config: { bind: () => ({ schemaRegistryUri: arn, eventRecordFormat, schemaValidationConfigs }) },
      statements,
      secrets: [],
      acknowledge: acknowledgeGlueSchemaVersionWildcard,
    };
  }

  if (!Token.isUnresolved(registry.url)) {
    if (!/^https?:\/\/[^\s/]+/.test(registry.url) || !URL.canParse(registry.url)) {
      throw new SchemaRegistryConfigError(
        'schemaRegistry.url must be an http(s) URL of the Confluent registry',
      );
    }
    // The URL is written into the template as it is, for anyone who can read the stack to see; the
    // message names the prop, never the URL.
    const { username, password } = new URL(registry.url);
    if (username || password) {
      throw new SchemaRegistryConfigError(
        'schemaRegistry.url must not carry a user name or password (it would be written into the CloudFormation template): give them as schemaRegistry.auth, a Secrets Manager secret',
      );
    }
    // Named by the character alone: the URL is not quoted in messages (see above).
    const refused = [...registry.url].find((char) => !SCHEMA_REGISTRY_URI_CHAR.test(char));
    if (refused !== undefined) {
      throw new SchemaRegistryConfigError(
        `schemaRegistry.url contains ${JSON.stringify(refused)}, which CloudFormation refuses in SchemaRegistryURI (pattern [a-zA-Z0-9-/*:_+=.@-]*: letters, digits and - / * : _ + = . @ only)`,
      );
    }
  }
  const accessConfigs: lambda.KafkaSchemaRegistryAccessConfig[] = [];
  const secrets: secretsmanager.ISecret[] = [];
  if (registry.auth) {
    accessConfigs.push({
      type: CONFLUENT_AUTH_TYPES[registry.auth.type],
      uri: registry.auth.secret.secretArn,
    });
    secrets.push(registry.auth.secret);
  }
  if (registry.rootCaCertificate) {
    accessConfigs.push({
      type: lambda.KafkaSchemaRegistryAccessConfigType.SERVER_ROOT_CA_CERTIFICATE,
      uri: registry.rootCaCertificate.secretArn,
    });
    secrets.push(registry.rootCaCertificate);
  }
  return {
    config: {
      bind: () => ({
        schemaRegistryUri: registry.url,
        eventRecordFormat,
        schemaValidationConfigs,
        accessConfigs: accessConfigs.length ? accessConfigs : undefined,
      }),
    },
    statements: [],
    secrets,
    acknowledge: () => {},
  };
}

/**
 * Acknowledges, with its reason, the `"*"` resource of a Glue registry's `glue:GetSchemaVersion` statement
 * for cdk-nag's AwsSolutions-IAM5 on the role that carries it.
 *
 * @example
 * acknowledgeGlueSchemaVersionWildcard(role);
 */
export function acknowledgeGlueSchemaVersionWildcard(role: IConstruct): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'glue:GetSchemaVersion: records name only a schema version id, and a read by id cannot be scoped to a registry or schema; AWS grants it on "*" for Glue deserializers (https://docs.aws.amazon.com/glue/latest/dg/schema-registry-gs.html).',
  });
}
