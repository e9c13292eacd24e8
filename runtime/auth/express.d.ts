// express 5 ships no types (and @types/express is not a dependency): the little of it the
// authorization server uses, so the SDK's handlers mount on an app confined to the OAuth paths.
declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Request extends IncomingMessage {
    readonly query: Record<string, unknown>;
    readonly body: unknown;
  }
  export interface Response extends ServerResponse {
    redirect(status: number, url: string): void;
    status(code: number): Response;
    json(body: unknown): Response;
  }
  export type NextFunction = (error?: unknown) => void;
  export type RequestHandler = (req: Request, res: Response, next: NextFunction) => void;
  export type ErrorHandler = (error: unknown, req: Request, res: Response, next: NextFunction) => void;
  export interface Application {
    (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
    use(path: string, handler: RequestHandler): Application;
    use(handler: RequestHandler | ErrorHandler): Application;
    disable(setting: string): Application;
    set(setting: string, value: unknown): Application;
  }
  const express: () => Application;
  export default express;
}
