import { join } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { KafkaConsumerConfigError, KafkaConsumerFunction } from './kafka-consumer-function.ts';
import type { KafkaSource } from './kafka-source.ts';
import {
  clicksConsumer,
  importedSecret,
  publicBrokers,
  secretDecryptStatement,
  TEST_KEY_ARN,
  unbundledStack,
} from './msk-test-stacks.ts';
import { roleStatements } from './template-queries.ts';

const ENTRY = join(import.meta.dirname, '../functions/orders/handler.ts');
const CLUSTER_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-uuid-1';
const REGISTRY_ARN = 'arn:aws:glue:eu-west-1:111122223333:registry/shop';
const BASIC_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:registry-basic-AbCdEf';
const MTLS_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:registry-mtls-AbCdEf';
const CA_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:registry-ca-AbCdEf';
const msk: KafkaSource = { kind: 'msk', clusterArn: CLUSTER_ARN, auth: { type: 'iam' } };

function newStack(): Stack {
  return unbundledStack('Registries', undefined);
}

/** The mapping's `SchemaRegistryConfig`, which CloudFormation nests in the MSK source's settings. */
function registryOf(template: Template, topic: string): unknown {
  const found = Object.values(
    template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { Topics: [topic] } }),
  );
  expect(found).toHaveLength(1);
  const properties = (found[0] as { Properties: Record<string, { SchemaRegistryConfig?: unknown }> })
    .Properties;
  return properties.AmazonManagedKafkaEventSourceConfig?.SchemaRegistryConfig;
}

describe('KafkaConsumerFunction with a schema registry', () => {
  let stack: Stack;
  let template: Template;

  beforeAll(() => {
    stack = newStack();
    const base = { entry: ENTRY, source: msk };
    new KafkaConsumerFunction(stack, 'Glue', {
      ...base,
      topic: 'orders-avro',
      consumerGroupId: 'g-glue',
      schemaRegistry: { kind: 'glue', registryArn: REGISTRY_ARN, eventRecordFormat: 'JSON' },
    });
    const basic = secretsmanager.Secret.fromSecretCompleteArn(stack, 'BasicSecret', BASIC_ARN);
    new KafkaConsumerFunction(stack, 'Basic', {
      ...base,
      topic: 'orders-basic',
      consumerGroupId: 'g-basic',
      schemaRegistry: {
        kind: 'confluent',
        url: 'https://registry.example.com',
        auth: { type: 'basic', secret: basic },
        eventRecordFormat: 'SOURCE',
        validate: ['KEY', 'VALUE'],
      },
    });
    const key = new kms.Key(stack, 'RegistryKey', { enableKeyRotation: true });
    const mtls = secretsmanager.Secret.fromSecretAttributes(stack, 'MtlsSecret', {
      secretCompleteArn: MTLS_ARN,
      encryptionKey: key,
    });
    const ca = secretsmanager.Secret.fromSecretCompleteArn(stack, 'Ca', CA_ARN);
    new KafkaConsumerFunction(stack, 'Mtls', {
      ...base,
      topic: 'orders-mtls',
      consumerGroupId: 'g-mtls',
      schemaRegistry: {
        kind: 'confluent',
        url: 'https://registry.example.com',
        auth: { type: 'mtls', secret: mtls },
        rootCaCertificate: ca,
        eventRecordFormat: 'JSON',
        validate: ['KEY'],
      },
    });
    new KafkaConsumerFunction(stack, 'Plain', { ...base, topic: 'orders-plain', consumerGroupId: 'g-plain' });
    template = Template.fromStack(stack);
  }, 120_000); // synth on a busy 2-core machine

  it('points a Glue mapping at the registry ARN, provisioned, validating the value by default', () => {
    expect(registryOf(template, 'orders-avro')).toEqual({
      SchemaRegistryURI: REGISTRY_ARN,
      EventRecordFormat: 'JSON',
      SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      Topics: ['orders-avro'],
      ProvisionedPollerConfig: { MinimumPollers: 1, MaximumPollers: 3 },
      AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'g-glue' },
    });
  });

  // Records name a schema version id only, and GetSchemaVersion by id is not scoped to a registry or schema:
  // AWS's deserializer policy grants it on "*" (https://docs.aws.amazon.com/glue/latest/dg/schema-registry-gs.html,
  // "IAM examples for deserializers"; awslabs/aws-glue-schema-registry issues 68 and 151).
  it('grants a Glue consumer GetRegistry on the registry and GetSchemaVersion on "*", nothing else of Glue', () => {
    const glue = roleStatements(template, 'GlueRole').filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('glue:')),
    );
    expect(glue).toEqual([
      { Effect: 'Allow', Action: 'glue:GetRegistry', Resource: REGISTRY_ARN },
      { Effect: 'Allow', Action: 'glue:GetSchemaVersion', Resource: '*' },
    ]);
    const secrets = roleStatements(template, 'GlueRole').filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('secretsmanager:')),
    );
    expect(secrets).toEqual([]);
  });

  it('passes a Confluent URL with its basic-auth secret and lets the role read and decrypt that secret only', () => {
    expect(registryOf(template, 'orders-basic')).toEqual({
      SchemaRegistryURI: 'https://registry.example.com',
      EventRecordFormat: 'SOURCE',
      AccessConfigs: [{ Type: 'BASIC_AUTH', URI: BASIC_ARN }],
      SchemaValidationConfigs: [{ Attribute: 'KEY' }, { Attribute: 'VALUE' }],
    });
    const statements = roleStatements(template, 'BasicRole').filter((statement) =>
      [statement.Action].flat().some((action) => /^(secretsmanager|glue|kms):/.test(action)),
    );
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
        Resource: BASIC_ARN,
      },
      // Imported without its key: decrypt through Secrets Manager, for this secret only.
      {
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':kms:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':key/*',
            ],
          ],
        },
        Condition: {
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
            },
            'kms:EncryptionContext:SecretARN': BASIC_ARN,
          },
        },
      },
    ]);
  });

  it('passes an mTLS secret and a root CA, with kms:Decrypt on the key that encrypts the secret', () => {
    expect(registryOf(template, 'orders-mtls')).toEqual({
      SchemaRegistryURI: 'https://registry.example.com',
      EventRecordFormat: 'JSON',
      AccessConfigs: [
        { Type: 'CLIENT_CERTIFICATE_TLS_AUTH', URI: MTLS_ARN },
        { Type: 'SERVER_ROOT_CA_CERTIFICATE', URI: CA_ARN },
      ],
      SchemaValidationConfigs: [{ Attribute: 'KEY' }],
    });
    const statements = roleStatements(template, 'MtlsRole').filter((statement) =>
      [statement.Action].flat().some((action) => /^(secretsmanager|glue|kms):/.test(action)),
    );
    const read = ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'];
    expect(statements).toEqual([
      { Effect: 'Allow', Action: read, Resource: MTLS_ARN },
      // The mTLS secret's key, in the role's own policy as well as the key's: through Secrets Manager,
      // for that secret only.
      {
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^RegistryKey/), 'Arn'] },
        Condition: {
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
            },
            'kms:EncryptionContext:SecretARN': MTLS_ARN,
          },
        },
      },
      { Effect: 'Allow', Action: read, Resource: CA_ARN },
      // The CA was imported without its key: decrypt through Secrets Manager, for that secret only.
      expect.objectContaining({
        Action: 'kms:Decrypt',
        Condition: { StringEquals: expect.objectContaining({ 'kms:EncryptionContext:SecretARN': CA_ARN }) },
      }),
    ]);
    // The mTLS secret's key is in the stack: Secret.grantRead lets the role decrypt in the key's policy,
    // through Secrets Manager.
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'kms:Decrypt',
            Principal: { AWS: { 'Fn::GetAtt': [Match.stringLikeRegexp('^MtlsRole'), 'Arn'] } },
            Condition: { StringEquals: { 'kms:ViaService': Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it('leaves a mapping without a registry without SchemaRegistryConfig', () => {
    expect(registryOf(template, 'orders-plain')).toBeUndefined();
  });

  it('passes cdk-nag AwsSolutions (the Glue schema wildcard acknowledged with its reason)', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  }, 60_000);

  it('acknowledges GetSchemaVersion on "*" for cdk-nag on a role without network interfaces', () => {
    // Public self-managed brokers: the role has no EC2 Describe* statements, whose "*" is acknowledged too.
    const publicStack = newStack();
    const secret = secretsmanager.Secret.fromSecretCompleteArn(publicStack, 'S', BASIC_ARN);
    clicksConsumer(publicStack, 'Public', publicBrokers({ type: 'basic', secret }), {
      schemaRegistry: { kind: 'glue', registryArn: REGISTRY_ARN, eventRecordFormat: 'JSON' },
    });
    expect(new AwsSolutionsChecks().validateScope(publicStack).violations).toEqual([]);
  }, 60_000);
});

describe('a schema registry secret imported by name, partial or complete ARN', () => {
  const env = { account: '111122223333', region: 'eu-west-1' };
  const partialCaArn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:registry-ca';

  /** The secretsmanager: and kms: statements of a consumer's role, given the secrets the way `use` says. */
  function secretStatements(use: 'registry' | 'source'): unknown[] {
    const stack = unbundledStack('Secrets', env);
    const basic = secretsmanager.Secret.fromSecretNameV2(stack, 'Basic', 'registry-basic');
    const ca = secretsmanager.Secret.fromSecretPartialArn(stack, 'Ca', partialCaArn);
    const source = use === 'source' ? publicBrokers({ type: 'basic', secret: basic }, ca) : msk;
    new KafkaConsumerFunction(stack, 'C', {
      entry: ENTRY,
      source,
      topic: 'orders',
      consumerGroupId: 'g',
      schemaRegistry:
        use === 'registry'
          ? {
              kind: 'confluent',
              url: 'https://registry.example.com',
              auth: { type: 'basic', secret: basic },
              rootCaCertificate: ca,
              eventRecordFormat: 'JSON',
            }
          : undefined,
    });
    return roleStatements(Template.fromStack(stack), 'CRole').filter((statement) =>
      [statement.Action].flat().some((action) => /^(secretsmanager|kms):/.test(action)),
    );
  }

  // A secret's real ARN ends in "-" and six random characters: a grant on the name or partial ARN as
  // given would never match it, and the key Secrets Manager decrypts with is unknown.
  // https://docs.aws.amazon.com/lambda/latest/dg/with-msk-permissions.html (schema registry permissions)
  it('is granted exactly as the same secret of a Kafka source: ARN-??????, and kms:Decrypt via Secrets Manager', () => {
    const registry = secretStatements('registry');
    expect(registry).toEqual(secretStatements('source'));
    expect(registry).toContainEqual(
      expect.objectContaining({
        Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
        Resource: `${partialCaArn}-??????`,
      }),
    );
    expect(registry).toContainEqual(
      expect.objectContaining({
        Action: 'kms:Decrypt',
        Condition: {
          StringEquals: { 'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com' },
          StringLike: { 'kms:EncryptionContext:SecretARN': `${partialCaArn}-??????` },
        },
      }),
    );
  });

  /**
   * A stack `id` whose consumer `C` of `orders` reads through a Confluent registry authenticating with
   * `type` and the secret `secret` makes in that stack.
   */
  function registryAuthStack(
    id: string,
    type: 'basic' | 'mtls',
    secret: (stack: Stack) => secretsmanager.ISecret,
  ): Stack {
    const stack = unbundledStack(id, env);
    new KafkaConsumerFunction(stack, 'C', {
      entry: ENTRY,
      source: msk,
      topic: 'orders',
      consumerGroupId: 'g',
      schemaRegistry: {
        kind: 'confluent',
        url: 'https://registry.example.com',
        auth: { type, secret: secret(stack) },
        eventRecordFormat: 'JSON',
      },
    });
    return stack;
  }

  it('gets kms:Decrypt for a secret imported by complete ARN without its key', () => {
    const stack = registryAuthStack('Complete', 'basic', (scope) =>
      secretsmanager.Secret.fromSecretCompleteArn(scope, 'S', BASIC_ARN),
    );
    const anyKeyOfTheAccount = {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:eu-west-1:111122223333:key/*']],
    };
    expect(roleStatements(Template.fromStack(stack), 'CRole')).toContainEqual(
      secretDecryptStatement(anyKeyOfTheAccount, BASIC_ARN, 'eu-west-1'),
    );
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
  // CDK cannot change the policy of a key imported by ARN: Secret.grantRead's decrypt grant, which goes
  // into the key policy, is dropped, so the role's own policy must name the key.
  it('gets kms:Decrypt on the key a secret is given with when that key is imported by ARN', () => {
    const stack = registryAuthStack('ImportedKey', 'mtls', (scope) =>
      importedSecret(scope, 'S', MTLS_ARN, TEST_KEY_ARN),
    );
    const template = Template.fromStack(stack);
    expect(
      roleStatements(template, 'CRole').filter((statement) =>
        [statement.Action].flat().some((action) => action.startsWith('kms:')),
      ),
    ).toEqual([secretDecryptStatement(TEST_KEY_ARN, MTLS_ARN, 'eu-west-1')]);
    expect(JSON.stringify(template.toJSON())).not.toContain(':key/*');
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
});

describe('a Glue registry made in the same app', () => {
  // Its ARN is a token until deploy: CloudFormation resolves it, as it does the grant's resource.
  it('takes the registry attrArn and grants GetRegistry on it', () => {
    const stack = newStack();
    const registry = new glue.CfnRegistry(stack, 'Shop', { name: 'shop' });
    new KafkaConsumerFunction(stack, 'Consumer', {
      entry: ENTRY,
      source: msk,
      topic: 'orders',
      consumerGroupId: 'g',
      schemaRegistry: { kind: 'glue', registryArn: registry.attrArn, eventRecordFormat: 'SOURCE' },
    });
    const template = Template.fromStack(stack);
    const arn = { 'Fn::GetAtt': [stack.getLogicalId(registry), 'Arn'] };
    expect(registryOf(template, 'orders')).toEqual({
      SchemaRegistryURI: arn,
      EventRecordFormat: 'SOURCE',
      SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
    });
    const glueStatements = roleStatements(template, 'ConsumerRole').filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('glue:')),
    );
    expect(glueStatements).toEqual([
      { Effect: 'Allow', Action: 'glue:GetRegistry', Resource: arn },
      { Effect: 'Allow', Action: 'glue:GetSchemaVersion', Resource: '*' },
    ]);
  }, 120_000);
});

describe('schema registries refused at synth time', () => {
  const base = { entry: ENTRY, source: msk, topic: 'orders', consumerGroupId: 'g' };
  const glue = { kind: 'glue', registryArn: REGISTRY_ARN, eventRecordFormat: 'JSON' } as const;

  it.each([
    [
      { ...base, schemaRegistry: glue, mappingProps: { provisionedPollerConfig: undefined } },
      /needs provisioned mode/,
    ],
    [
      {
        ...base,
        schemaRegistry: { ...glue, registryArn: 'arn:aws:glue:eu-west-1:111122223333:schema/shop/orders' },
      },
      /registryArn must be a Glue registry ARN/,
    ],
    [{ ...base, schemaRegistry: { ...glue, validate: [] } }, /needs KEY, VALUE or both/],
    [{ ...base, schemaRegistry: { ...glue, validate: ['VALUE', 'VALUE'] as const } }, /more than once/],
    [
      {
        ...base,
        schemaRegistry: { kind: 'confluent', url: 'registry:8081', eventRecordFormat: 'JSON' } as const,
      },
      /http\(s\) URL/,
    ],
    [
      {
        ...base,
        schemaRegistry: {
          kind: 'confluent',
          url: 'https://key:SECRET-PASS@registry.example.com',
          eventRecordFormat: 'JSON',
        } as const,
      },
      'schemaRegistry.url must not carry a user name or password (it would be written into the CloudFormation template): give them as schemaRegistry.auth, a Secrets Manager secret',
    ],
    [
      {
        ...base,
        schemaRegistry: {
          kind: 'confluent',
          url: 'https://SECRET-KEY@registry.example.com',
          eventRecordFormat: 'JSON',
        } as const,
      },
      /must not carry a user name or password/,
    ],
    [
      { ...base, schemaRegistry: { ...glue, validation: ['VALUE'] } },
      'unknown option "schemaRegistry.validation" — did you mean "schemaRegistry.validate"?',
    ],
    [
      {
        ...base,
        schemaRegistry: {
          kind: 'confluent',
          url: 'https://registry:8081',
          eventRecordFormat: 'JSON',
          auth: { type: 'basic', secrets: {} },
        },
      },
      'unknown option "schemaRegistry.auth.secrets" — did you mean "schemaRegistry.auth.secret"?',
    ],
  ])('consumer %#', (props, message) => {
    expect(() => new KafkaConsumerFunction(newStack(), 'C', props as never)).toThrow(
      KafkaConsumerConfigError,
    );
    expect(() => new KafkaConsumerFunction(newStack(), 'C', props as never)).toThrow(message);
  });

  // CloudFormation's SchemaRegistryURI pattern takes a-z A-Z 0-9 - / * : _ + = . @ only: a URL with a
  // query, an escape or a space would fail at deploy time.
  it.each([
    ['https://registry.example.com/a b', '" "'],
    ['https://registry.example.com/?tenant=shop', '"?"'],
    ['https://registry.example.com/x&y', '"&"'],
    ['https://registry.example.com/sr%2Fshop', '"%"'],
  ])('consumer with a Confluent URL CloudFormation refuses: %s', (url, char) => {
    const schemaRegistry = { kind: 'confluent', url, eventRecordFormat: 'JSON' } as const;
    const build = () => new KafkaConsumerFunction(newStack(), 'C', { ...base, schemaRegistry });
    expect(build).toThrow(
      new KafkaConsumerConfigError(
        `schemaRegistry.url contains ${char}, which CloudFormation refuses in SchemaRegistryURI (pattern [a-zA-Z0-9-/*:_+=.@-]*: letters, digits and - / * : _ + = . @ only)`,
      ),
    );
  });

  it('accepts a Confluent URL with a port and a path', () => {
    const url = 'https://psrc-abc12.eu-west-1.aws.confluent.cloud:443/registry_1/v=2';
    const schemaRegistry = { kind: 'confluent', url, eventRecordFormat: 'JSON' } as const;
    const stack = newStack();
    new KafkaConsumerFunction(stack, 'C', { ...base, schemaRegistry });
    expect(registryOf(Template.fromStack(stack), 'orders')).toMatchObject({ SchemaRegistryURI: url });
  });

  // Untyped JavaScript callers: a kind or auth type no registry has is named with the accepted ones, not
  // taken for a Confluent registry (a misspelled Glue kind) or for mTLS (a misspelled basic auth).
  const confluent = { kind: 'confluent', url: 'https://registry.example.com', eventRecordFormat: 'JSON' };
  it.each([
    [
      { ...glue, kind: 'Glue' },
      'schemaRegistry.kind "Glue" is not a schema registry kind (one of "glue", "confluent")',
    ],
    [
      { registryArn: REGISTRY_ARN, eventRecordFormat: 'JSON' },
      'schemaRegistry.kind undefined is not a schema registry kind (one of "glue", "confluent")',
    ],
    ['glue', 'schemaRegistry must be an object with a kind (one of "glue", "confluent")'],
    [
      { ...confluent, auth: { type: 'BASIC', secret: { secretArn: BASIC_ARN } } },
      'schemaRegistry.auth.type "BASIC" is not an authentication a Confluent schema registry takes (one of "basic", "mtls")',
    ],
    [
      { ...confluent, auth: 'basic' },
      'schemaRegistry.auth must be an object with a type (one of "basic", "mtls")',
    ],
    [
      { ...confluent, auth: { type: 'basic' } },
      'schemaRegistry.auth.secret must be a Secrets Manager secret (ISecret) with auth type "basic"',
    ],
    [
      { ...glue, validate: 'VALUE' },
      'schemaRegistry.validate must be a list of the parts to validate (KEY, VALUE or both), got "VALUE"',
    ],
    [
      { ...glue, eventRecordFormat: 'json' },
      'schemaRegistry.eventRecordFormat: "json" is not JSON or SOURCE',
    ],
    [{ ...glue, validate: ['value'] }, 'schemaRegistry.validate: "value" is not KEY or VALUE'],
  ])('consumer with an unknown registry shape %#', (schemaRegistry, message) => {
    const build = () => new KafkaConsumerFunction(newStack(), 'C', { ...base, schemaRegistry } as never);
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(new KafkaConsumerConfigError(message));
  });
});
