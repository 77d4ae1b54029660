/**
 * Clients that resolve writer schemas by id, cached across invocations (module scope lives as long
 * as the Lambda container), one request per id however many records ask at once.
 */
import { BoundedCache } from './cache.ts';
import { requestCause, SchemaNotFoundError, SchemaRegistryRequestError } from './errors.ts';

/**
 * A writer schema as the registry holds it.
 *
 * @example
 * ```ts
 * const schema: RegisteredSchema = { id: '17', type: 'AVRO', definition: '{"type":"string"}' };
 * ```
 */
export interface RegisteredSchema {
  /** Confluent: the decimal id; Glue: the schema version UUID. */
  readonly id: string;
  readonly type: 'AVRO' | 'PROTOBUF' | 'JSON';
  /** The schema text (Avro JSON, .proto source, JSON Schema). */
  readonly definition: string;
}

/**
 * Counts of a client since it was created: `requests` made to the registry, `cacheHits` answered from
 * the cache. After warm-up `requests` stops growing.
 *
 * @example
 * ```ts
 * console.log(registry.stats.requests, registry.stats.cacheHits);
 * ```
 */
export interface SchemaRegistryStats {
  requests: number;
  cacheHits: number;
}

/**
 * Resolves writer schemas by id. Made by {@link confluentSchemaRegistry} or `glueSchemaRegistry`
 * (`kafka-lambda/schema-registry/glue`); create it once, at module scope, so its cache outlives the
 * invocation.
 *
 * @example
 * ```ts
 * const schema = await registry.getSchema('17', signal);
 * ```
 */
export interface SchemaRegistryClient {
  /** Which registry's ids it understands. */
  readonly registry: 'confluent' | 'glue';
  readonly stats: SchemaRegistryStats;
  /**
   * The schema with this id. Rejects with `SchemaNotFoundError` when the registry has none (Confluent:
   * a 404 with error code 40403), with `SchemaRegistryRequestError` when it cannot be asked (timeout,
   * network, 5xx, 401/403, any other 404: a URL that is not the registry's API) or when `signal`
   * aborts.
   */
  getSchema(id: string, signal?: AbortSignal): Promise<RegisteredSchema>;
}

/**
 * Options common to both registry clients.
 *
 * @example
 * ```ts
 * const options: SchemaRegistryCacheOptions = { cacheSize: 100, timeoutMs: 2000 };
 * ```
 */
export interface SchemaRegistryCacheOptions {
  /** Schemas kept; the least recently used goes when full. Default 1000. */
  cacheSize?: number;
  /**
   * Longest wait for one request, in ms; the decoder's signal (the invocation's deadline) also ends
   * it. Default 5000.
   */
  timeoutMs?: number;
}

/** Caching, request sharing and timeouts; subclasses only fetch. */
export abstract class CachingSchemaRegistry implements SchemaRegistryClient {
  abstract readonly registry: 'confluent' | 'glue';
  readonly stats: SchemaRegistryStats = { requests: 0, cacheHits: 0 };
  readonly #cache: BoundedCache<string, Promise<RegisteredSchema>>;
  readonly #timeoutMs: number;

  constructor(options: SchemaRegistryCacheOptions = {}) {
    this.#cache = new BoundedCache(options.cacheSize ?? 1000);
    const timeoutMs = options.timeoutMs ?? 5000;
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs))
      throw new RangeError(`timeoutMs must be a positive number, not ${timeoutMs}`);
    this.#timeoutMs = timeoutMs;
  }

  getSchema(id: string, signal?: AbortSignal): Promise<RegisteredSchema> {
    const cached = this.#cache.get(id);
    if (cached !== undefined) {
      this.stats.cacheHits++;
      return cached;
    }
    this.stats.requests++;
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const request = this.fetchSchema(id, signal ? AbortSignal.any([signal, timeout]) : timeout);
    this.#cache.set(id, request);
    // A failed request is not cached: the next record asks again (a 404 too: the schema may be
    // registered meanwhile, and the record is isolated either way).
    request.catch(() => {
      if (this.#cache.get(id) === request) this.#cache.delete(id);
    });
    return request;
  }

  /** One request to the registry; rejects with the errors {@link SchemaRegistryClient.getSchema} names. */
  protected abstract fetchSchema(id: string, signal: AbortSignal): Promise<RegisteredSchema>;
}

/**
 * How to authenticate to a Confluent-compatible registry: basic auth (Confluent Cloud's API key and
 * secret) or a bearer token (a string, or a function called per request for tokens that expire). A
 * token with a space, a control character or a non-ASCII character inside fails the request with a
 * `SchemaRegistryRequestError` naming `auth.bearerToken`, before anything is sent.
 *
 * @example
 * ```ts
 * const auth: ConfluentRegistryAuth = { username: process.env.SR_KEY!, password: process.env.SR_SECRET! };
 * ```
 */
export type ConfluentRegistryAuth =
  | { readonly username: string; readonly password: string }
  | { readonly bearerToken: string | (() => string | Promise<string>) };

/**
 * Options of {@link confluentSchemaRegistry}.
 *
 * @example
 * ```ts
 * const options: ConfluentSchemaRegistryOptions = { url: 'https://psrc-123.eu-west-1.aws.confluent.cloud' };
 * ```
 */
export interface ConfluentSchemaRegistryOptions extends SchemaRegistryCacheOptions {
  /** Base URL of the registry's REST API (Confluent, or a compatible one such as Apicurio's `/apis/ccompat/v7`). */
  url: string;
  auth?: ConfluentRegistryAuth;
}

/**
 * A client of a Confluent-compatible schema registry (Confluent Platform, Confluent Cloud, Apicurio's
 * compatible API): `GET /schemas/ids/{id}`, cached.
 *
 * @example
 * ```ts
 * const registry = confluentSchemaRegistry({ url: process.env.SCHEMA_REGISTRY_URL! });
 * export const handler = middy().use(kafkaBatch({ value: avroDecoder({ registry }), onRecord }));
 * ```
 */
export function confluentSchemaRegistry(options: ConfluentSchemaRegistryOptions): SchemaRegistryClient {
  return new ConfluentSchemaRegistry(options);
}

class ConfluentSchemaRegistry extends CachingSchemaRegistry {
  readonly registry = 'confluent';
  readonly #base: string;
  readonly #auth: ConfluentRegistryAuth | undefined;

  constructor(options: ConfluentSchemaRegistryOptions) {
    super(options);
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new TypeError('The schema registry url is not a URL');
    }
    if (url.username || url.password)
      throw new TypeError('Give the schema registry credentials as auth, not in the url');
    this.#base = url.href.replace(/\/+$/, '');
    this.#auth = options.auth;
  }

  protected async fetchSchema(id: string, signal: AbortSignal): Promise<RegisteredSchema> {
    if (!/^\d{1,10}$/.test(id)) throw new SchemaNotFoundError(id);
    const headers: Record<string, string> = {
      accept: 'application/vnd.schemaregistry.v1+json, application/json',
    };
    const auth = this.#auth;
    if (auth !== undefined) {
      // Base64 carries any character of a user-id and password, so fetch refuses none of them; a
      // bearer token goes in as it is, and is checked first.
      headers.authorization =
        'bearerToken' in auth
          ? `Bearer ${await bearerToken(auth.bearerToken)}`
          : `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    }
    let response: Response;
    try {
      response = await fetch(`${this.#base}/schemas/ids/${id}`, { headers, signal });
    } catch (error) {
      const reason = signal.aborted ? 'timed out or was aborted' : 'failed';
      throw new SchemaRegistryRequestError(`Schema registry request for schema ${id} ${reason}`, undefined, {
        cause: requestCause('fetch', error),
      });
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.status === 404) {
      if (confluentErrorCode(body) === SCHEMA_NOT_FOUND) throw new SchemaNotFoundError(id);
      throw new SchemaRegistryRequestError(
        `Schema registry answered 404 for schema ${id} without Confluent's error code ${SCHEMA_NOT_FOUND} (schema not found): ${NOT_THE_API}`,
        404,
      );
    }
    if (!response.ok)
      throw new SchemaRegistryRequestError(
        `Schema registry answered ${response.status} for schema ${id}`,
        response.status,
      );
    const { schema, schemaType } = (body ?? {}) as { schema?: unknown; schemaType?: unknown };
    if (typeof schema !== 'string')
      throw new SchemaRegistryRequestError(
        `Schema registry answer for schema ${id} has no schema`,
        response.status,
      );
    // Confluent omits schemaType for Avro, the original format.
    const type = schemaType === undefined ? 'AVRO' : schemaType;
    if (type !== 'AVRO' && type !== 'PROTOBUF' && type !== 'JSON')
      throw new SchemaRegistryRequestError(`Schema ${id} has an unknown schemaType`, response.status);
    return { id, type, definition: schema };
  }
}

/**
 * Confluent's error code for an id the registry has no schema for, in the JSON body of the 404 that
 * `GET /schemas/ids/{id}` answers (Confluent's REST API reference, "GET /schemas/ids/{int: id}":
 * https://docs.confluent.io/platform/current/schema-registry/develop/api.html).
 * Any other 404 (a web server's, or a registry's for an unknown path: Apicurio answers `error_code`
 * 404 or 0 there) says the URL is not the registry's API, not that the schema is unknown: the record
 * is retried, not dropped as `SCHEMA_NOT_FOUND`.
 */
const SCHEMA_NOT_FOUND = 40403;

/** What a 404 without a Confluent error code of its own suggests; the URL itself is not quoted (it may hold a key). */
const NOT_THE_API =
  "the URL may not be the registry's REST API: check the registry URL (Apicurio's is at /apis/ccompat/v7)";

/** The `error_code` of a Confluent error body, if the body is one. */
function confluentErrorCode(body: unknown): unknown {
  return typeof body === 'object' && body !== null
    ? (body as { error_code?: unknown }).error_code
    : undefined;
}

/**
 * A bearer token goes into the Authorization header: fetch refuses a header value with a control
 * character or beyond Latin-1, and its error quotes the header, the token. Visible ASCII holds every
 * token RFC 6750 allows (b64token, https://www.rfc-editor.org/rfc/rfc6750#section-2.1). Whitespace
 * around it (a token file's final newline) is dropped, as fetch drops it from any header value
 * (https://fetch.spec.whatwg.org/#concept-header-value-normalize).
 */
const BEARER_TOKEN = /^[\t\n\r ]*([\x21-\x7e]+)[\t\n\r ]*$/;

/** The token to send, or a request error naming `auth.bearerToken`, never the token. */
async function bearerToken(option: string | (() => string | Promise<string>)): Promise<string> {
  let token: unknown = option;
  if (typeof option === 'function') {
    try {
      token = await option();
    } catch (error) {
      throw new SchemaRegistryRequestError(
        'The schema registry auth.bearerToken function failed',
        undefined,
        {
          cause: requestCause('auth.bearerToken()', error),
        },
      );
    }
  }
  const valid = typeof token === 'string' ? BEARER_TOKEN.exec(token)?.[1] : undefined;
  if (valid === undefined)
    throw new SchemaRegistryRequestError(
      'The schema registry auth.bearerToken is not a token: it must be visible ASCII, without spaces or control characters',
    );
  return valid;
}
