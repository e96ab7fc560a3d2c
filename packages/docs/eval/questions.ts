/**
 * The retrieval evaluation set: questions as people ask them of a documentation corpus, each with
 * the page(s) that answer it (paths under the corpus's `docs/` folder, without `.md`; any one of
 * them counts). Written from what the pages are for, before any ranking was tuned against them,
 * and never copied from a heading. Ranking changes must not be tuned on these words: if a
 * question fails, fix the ranking for the kind of question it is, or leave it failing.
 */
export interface EvalQuestion {
  question: string;
  pages: string[];
}

export const HONO_QUESTIONS: EvalQuestion[] = [
  {
    question: 'My API should reject uploads bigger than 1 MB, what do I use?',
    pages: ['middleware/builtin/body-limit'],
  },
  {
    question: 'The browser says my React app is blocked by CORS policy when it calls the API',
    pages: ['middleware/builtin/cors'],
  },
  {
    question: 'protect endpoints with an API token sent in the Authorization header',
    pages: ['middleware/builtin/bearer-auth'],
  },
  {
    question: 'simple username and password prompt in front of an admin area',
    pages: ['middleware/builtin/basic-auth'],
  },
  {
    question: 'verify JSON Web Tokens from clients before my handlers run',
    pages: ['middleware/builtin/jwt', 'helpers/jwt'],
  },
  { question: 'how to create a signed token for a user after they log in', pages: ['helpers/jwt'] },
  {
    question: 'validate tokens against a set of public keys fetched from my identity provider',
    pages: ['middleware/builtin/jwk'],
  },
  {
    question: 'check that a posted form has the right fields with a schema library',
    pages: ['guides/validation'],
  },
  { question: 'push live updates to the browser as an event stream', pages: ['helpers/streaming'] },
  {
    question: 'store a session id in the browser and read it back on the next request',
    pages: ['helpers/cookie'],
  },
  {
    question: "ship my app to Cloudflare's edge network",
    pages: ['getting-started/cloudflare-workers', 'getting-started/cloudflare-workers-vite'],
  },
  { question: 'read the :id part of the URL inside a handler', pages: ['api/request', 'api/routing'] },
  { question: 'which router is the fastest and how are they different', pages: ['concepts/routers'] },
  { question: 'serve the app from a plain Node server', pages: ['getting-started/nodejs'] },
  {
    question: 'add X-Frame-Options and HSTS headers to every response',
    pages: ['middleware/builtin/secure-headers'],
  },
  {
    question: 'throw a 401 from deep inside my code and turn it into a response in one place',
    pages: ['api/exception'],
  },
  {
    question: "print each request's method, path and how long it took",
    pages: ['middleware/builtin/logger'],
  },
  { question: 'gzip the responses', pages: ['middleware/builtin/compress'] },
  { question: 'stop handlers that take more than a few seconds', pages: ['middleware/builtin/timeout'] },
  {
    question: 'block requests coming from certain IP addresses',
    pages: ['middleware/builtin/ip-restriction'],
  },
  {
    question: 'attach a unique identifier to each request for tracing',
    pages: ['middleware/builtin/request-id'],
  },
  {
    question: "pick the user's locale from Accept-Language or a cookie",
    pages: ['middleware/builtin/language'],
  },
  { question: 'make /about/ and /about go to the same page', pages: ['middleware/builtin/trailing-slash'] },
  {
    question: 'show how long the database calls took in the browser dev tools',
    pages: ['middleware/builtin/timing'],
  },
  {
    question: 'indent the JSON output when the client adds ?pretty',
    pages: ['middleware/builtin/pretty-json'],
  },
  { question: "answer 304 Not Modified when the content hasn't changed", pages: ['middleware/builtin/etag'] },
  { question: "keep responses in Cloudflare's cache API", pages: ['middleware/builtin/cache'] },
  { question: 'let an HTML form send a DELETE request', pages: ['middleware/builtin/method-override'] },
  { question: 'defend against cross-site request forgery', pages: ['middleware/builtin/csrf'] },
  {
    question: 'allow either basic auth or a bearer token depending on the client',
    pages: ['middleware/builtin/combine'],
  },
  {
    question: 'get at the context from a function that is not passed c',
    pages: ['middleware/builtin/context-storage'],
  },
  { question: 'share one layout across pages rendered with JSX', pages: ['middleware/builtin/jsx-renderer'] },
  {
    question: 'call my API from the frontend with types inferred from the server routes',
    pages: ['guides/rpc', 'concepts/stacks'],
  },
  { question: 'test my routes without starting a server', pages: ['guides/testing', 'helpers/testing'] },
  { question: 'a typed client for calling my app in tests', pages: ['helpers/testing'] },
  { question: 'upgrade the connection to a websocket', pages: ['helpers/websocket'] },
  { question: "get the client's remote IP address", pages: ['helpers/conninfo'] },
  { question: 'read environment variables the same way on every runtime', pages: ['helpers/adapter'] },
  { question: 'list every registered route while debugging', pages: ['helpers/dev'] },
  { question: 'generate static HTML files from my routes at build time', pages: ['helpers/ssg'] },
  { question: 'forward a request to another backend server', pages: ['helpers/proxy'] },
  { question: 'choose the response format from what the client accepts', pages: ['helpers/accepts'] },
  { question: 'write CSS-in-JS styles for JSX components', pages: ['helpers/css'] },
  {
    question: 'write reusable middleware that keeps its types',
    pages: ['helpers/factory', 'guides/middleware'],
  },
  { question: 'which entry point gives the smallest bundle', pages: ['api/presets'] },
  { question: 'customise the response when no route matches', pages: ['api/hono'] },
  { question: 'set the status code and a header before returning JSON', pages: ['api/context'] },
  { question: 'put several routes under a common prefix like /api/v1', pages: ['api/routing'] },
  { question: 'split a large app into several files', pages: ['guides/best-practices'] },
  { question: 'deploy behind API Gateway on Amazon', pages: ['getting-started/aws-lambda'] },
  { question: 'run it with Bun on another port', pages: ['getting-started/bun'] },
  { question: 'interactive components in the browser with hooks like useState', pages: ['guides/jsx-dom'] },
  {
    question: 'in what order do middlewares run around the handler',
    pages: ['guides/middleware', 'concepts/middleware'],
  },
  {
    question: 'scaffold a new project from a starter template',
    pages: ['guides/create-hono', 'getting-started/basic'],
  },
  { question: 'read files uploaded with multipart form data', pages: ['api/request'] },
  { question: 'insert an unescaped HTML string in a template literal', pages: ['helpers/html'] },
];

export const UNDICI_QUESTIONS: EvalQuestion[] = [
  { question: 'reuse connections to one host with a capped number of sockets', pages: ['api/Pool'] },
  {
    question: 'send my requests through the corporate HTTP proxy',
    pages: ['api/ProxyAgent', 'best-practices/proxy'],
  },
  { question: 'honour HTTP_PROXY and NO_PROXY from the environment', pages: ['api/EnvHttpProxyAgent'] },
  { question: 'route traffic through a SOCKS proxy', pages: ['api/Socks5ProxyAgent'] },
  {
    question: 'retry failed requests automatically with exponential backoff',
    pages: ['api/RetryAgent', 'api/RetryHandler'],
  },
  {
    question: 'fake HTTP responses in unit tests without touching the network',
    pages: ['api/MockAgent', 'best-practices/mocking-request'],
  },
  {
    question: 'make sure no real network calls happen while my tests run',
    pages: ['api/MockAgent', 'best-practices/mocking-request'],
  },
  {
    question: 'see which requests my mocks received',
    pages: ['api/MockCallHistory', 'best-practices/mocking-request', 'api/MockCallHistoryLog'],
  },
  {
    question: 'spread requests over several upstream servers',
    pages: ['api/BalancedPool', 'api/RoundRobinPool'],
  },
  {
    question: 'authenticate to the server with a TLS client certificate',
    pages: ['best-practices/client-certificate'],
  },
  { question: 'follow 3xx redirects automatically', pages: ['api/RedirectHandler', 'api/Dispatcher'] },
  { question: 'talk HTTP/2 without TLS', pages: ['api/H2CClient'] },
  { question: 'read the cookies out of a Set-Cookie response header', pages: ['api/Cookies'] },
  { question: 'turn a content type string into its MIME type and parameters', pages: ['api/ContentType'] },
  { question: 'log what the library does internally while debugging', pages: ['api/Debug'] },
  {
    question: 'get notified when a request is sent or its headers arrive, for monitoring',
    pages: ['api/DiagnosticsChannel'],
  },
  {
    question: 'how many connections of my pool are busy right now',
    pages: ['api/PoolStats', 'api/ClientStats'],
  },
  {
    question: "replace Node's global fetch with this library's",
    pages: ['api/GlobalInstallation', 'best-practices/undici-vs-builtin-fetch'],
  },
  {
    question: "why doesn't FormData from the package work with the fetch built into Node",
    pages: ['best-practices/undici-vs-builtin-fetch'],
  },
  { question: 'record real responses once and replay them in later test runs', pages: ['api/SnapshotAgent'] },
  { question: 'keep HTTP responses cached in memory or in SQLite', pages: ['api/CacheStore'] },
  { question: 'listen to server-sent events from a Node process', pages: ['api/EventSource'] },
  { question: 'open a websocket from Node', pages: ['api/WebSocket'] },
  { question: 'what does UND_ERR_CONNECT_TIMEOUT mean', pages: ['api/Errors'] },
  {
    question: 'how long to wait for response headers before giving up',
    pages: ['api/Dispatcher', 'api/Client'],
  },
  { question: 'write a response body straight into a writable stream', pages: ['api/Dispatcher'] },
  { question: 'shut down gracefully and close every socket', pages: ['api/Dispatcher', 'api/api-lifecycle'] },
  {
    question: 'what states does a client go through as it connects and disconnects',
    pages: ['api/api-lifecycle'],
  },
  { question: 'control how the TCP and TLS sockets are created', pages: ['api/Connector'] },
  { question: 'be polite when scraping websites', pages: ['best-practices/crawling'] },
  {
    question: 'my test runner hangs for seconds because keep-alive sockets stay open',
    pages: ['best-practices/writing-tests'],
  },
  {
    question: 'send several requests down one connection without waiting for each response',
    pages: ['api/Client'],
  },
  { question: 'the Cache API from service workers, but in Node', pages: ['api/CacheStorage'] },
  { question: 'turn a raw array of header names and values into an object', pages: ['api/Util'] },
  {
    question: 'mock requests to a single origin',
    pages: ['api/MockClient', 'api/MockPool', 'api/MockAgent'],
  },
  { question: 'error thrown when no mocked interceptor matches a request', pages: ['api/MockErrors'] },
  { question: 'one keep-alive connection pool per origin, managed for me', pages: ['api/Agent'] },
  { question: 'tunnel through a server with the CONNECT method', pages: ['api/Dispatcher'] },
  { question: 'add my own interceptor that changes every request', pages: ['api/Dispatcher'] },
  { question: 'cache DNS lookups', pages: ['api/Dispatcher'] },
  { question: 'decompress gzip or brotli responses for me', pages: ['api/Dispatcher'] },
  {
    question: 'avoid sending the same GET twice when identical requests run at once',
    pages: ['api/Dispatcher'],
  },
];
