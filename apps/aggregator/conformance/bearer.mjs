// Runs the conformance CLI as a client that holds an API key: every HTTP request it makes with
// fetch carries `Authorization: Bearer $LORE_CONFORMANCE_KEY`. Lore opens 2025-11-25 sessions
// (the home of server-to-client requests and of the GET stream) only for a key, as any client
// configured with one would send it. Without the variable nothing changes.
const key = process.env.LORE_CONFORMANCE_KEY;
if (key) {
  const plain = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
    return plain(input, { ...init, headers });
  };
}
