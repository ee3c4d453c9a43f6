/**
 * Answers for what never reaches the app: Node's HTTP parser refusing a request, an `Expect`
 * other than 100-continue, and a request @hono/node-server cannot turn into a web Request
 * (missing or malformed Host). Each gets a short problem document, as every app error does.
 */
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { ErrorCode } from '../domain/errors.js';
import { PROBLEM_MEDIA_TYPE, PROBLEMS, problemBody } from '../schemas/problems.js';

function problemJson(code: ErrorCode, baseUrl: string, detail: string): { status: number; body: string } {
  const body = JSON.stringify(problemBody(code, baseUrl, detail));
  return { status: PROBLEMS[code].status, body };
}

/** The parser's error code → the problem to answer with. */
function parserProblem(err: NodeJS.ErrnoException): { code: ErrorCode; detail: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'header-fields-too-large', detail: 'The request headers are over 16 KB.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADER_TIMEOUT':
      return { code: 'request-timeout', detail: 'The request did not arrive in time.' };
    default:
      return { code: 'bad-request', detail: `The request is not valid HTTP/1.1 (${String(err.code ?? 'parse error').slice(0, 40)}).` };
  }
}

export function answerBelowApp(server: Server, baseUrl: string, log: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A client that went away needs no answer, and is not an error of ours.
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { code, detail } = parserProblem(err);
    const { status, body } = problemJson(code, baseUrl, detail);
    log.info({ status, parser_error: err.code }, 'request refused by the HTTP parser');
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_MEDIA_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  // Registered, so Node no longer answers a bare 417 by itself.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const expect = String(req.headers.expect ?? '').slice(0, 100);
    const { status, body } = problemJson('expectation-failed', baseUrl, `Expect: ${expect} is not supported; only 100-continue is.`);
    res.writeHead(status, { 'Content-Type': PROBLEM_MEDIA_TYPE, 'Content-Length': Buffer.byteLength(body), Connection: 'close' }).end(body);
  });
}

/** @hono/node-server's error handler: a request it could not build (bad Host, bad URL) is a 400 problem. */
export function adapterErrorResponse(baseUrl: string, log: Logger) {
  return (err: unknown): Response => {
    const isRequestError = err instanceof Error && err.name === 'RequestError';
    if (!isRequestError) log.error({ err }, 'request failed in the HTTP adapter');
    const { status, body } = isRequestError
      ? problemJson('bad-request', baseUrl, `${err.message}.`)
      : problemJson('internal-error', baseUrl, 'The board failed to answer this request; it has been logged.');
    return new Response(body, { status, headers: { 'Content-Type': PROBLEM_MEDIA_TYPE } });
  };
}
