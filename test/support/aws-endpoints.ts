// Local stand-ins for AWS API endpoints, for the tests of what the replay does when one stops answering:
// a TCP server that accepts connections and never answers, and the Lambda API's event source mapping
// calls over HTTP, answered by the mapping model, with chosen requests left unanswered.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { GetEventSourceMappingCommand, UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import type { EsmModel } from './esm-model.ts';

/** A local endpoint: its URL, how many connections it accepted, and how to close it. */
export interface LocalEndpoint {
  url: string;
  connections(): number;
  close(): Promise<void>;
}

async function serve(server: Server, sockets: Set<Socket>): Promise<LocalEndpoint> {
  let connections = 0;
  server.on('connection', (socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A TCP server that accepts every connection, reads what is sent, and never answers. */
export function silentEndpoint(): Promise<LocalEndpoint> {
  return serve(
    createServer((socket) => socket.resume()),
    new Set(),
  );
}

/** A request to the Lambda API's event source mapping calls, as {@link lambdaApiEndpoint} sees it. */
export interface MappingRequest {
  method: 'GET' | 'PUT';
  uuid: string;
  /** The `Enabled` an UpdateEventSourceMapping (PUT) asks for. */
  enabled?: boolean;
}

/**
 * GetEventSourceMapping and UpdateEventSourceMapping over HTTP, answered by `model`; a request for which
 * `hang` returns true is read and never answered (nor passed to the model).
 */
export function lambdaApiEndpoint(
  model: EsmModel,
  hang: (request: MappingRequest) => boolean = () => false,
): Promise<LocalEndpoint & { requests: MappingRequest[] }> {
  const requests: MappingRequest[] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const uuid = decodeURIComponent(
      req.url?.match(/^\/2015-03-31\/event-source-mappings\/([^/?]+)/)?.[1] ?? '',
    );
    const request: MappingRequest =
      req.method === 'PUT'
        ? { method: 'PUT', uuid, enabled: (JSON.parse(body) as { Enabled?: boolean }).Enabled }
        : { method: 'GET', uuid };
    requests.push(request);
    if (hang(request)) return;
    try {
      const output =
        request.method === 'PUT'
          ? await model.lambda.send(
              new UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: request.enabled }),
            )
          : await model.lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }));
      const { $metadata: _, ...configuration } = output;
      res.writeHead(request.method === 'PUT' ? 202 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(configuration));
    } catch (error) {
      const name = (error as Error).name;
      const status =
        name === 'TooManyRequestsException' ? 429 : name === 'ResourceNotFoundException' ? 404 : 409;
      res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': name });
      res.end(JSON.stringify({ Type: 'User', message: (error as Error).message }));
    }
  };
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => void answer(req, res));
  return serve(server, sockets).then((endpoint) => ({ ...endpoint, requests }));
}
