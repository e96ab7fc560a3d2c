/**
 * A generated documentation corpus for the retrieval check: 33 pages on distinct operations
 * topics, each several paragraphs of technical prose built from the topic's own facts and a
 * shared house style (so that every page also carries the same common vocabulary), plus one
 * question per page whose answer lives in that page only, phrased differently from it.
 */

interface Topic {
  slug: string;
  title: string;
  /** What the page is about, as a noun phrase. */
  subject: string;
  intro: string;
  /** Specific facts: "How it works" and "Configuration" sections. */
  how: string[];
  settings: Array<[string, string]>;
  troubleshooting: string;
  /** A question answered by this page, in other words. */
  question: string;
}

const TOPICS: Topic[] = [
  {
    slug: 'database/connection-pooling',
    title: 'Connection pooling',
    subject: 'the database connection pool',
    intro:
      'A connection pool keeps a set of open database connections and lends them to requests, because opening a new connection for every query costs a TCP handshake, authentication and session setup.',
    how: [
      'When a request needs the database it borrows a connection from the pool and returns it when the transaction ends.',
      'If every connection is busy, the request waits in a queue until one is returned or the acquire timeout expires.',
      'Connections that stay unused longer than the idle timeout are closed, so a quiet service shrinks back to the minimum size.',
    ],
    settings: [
      [
        'pool.max',
        'the largest number of connections the pool opens; keep it below the server limit divided by the number of replicas',
      ],
      ['pool.idleTimeoutMs', 'how long an unused connection may stay open before it is closed'],
      ['pool.acquireTimeoutMs', 'how long a request waits for a free connection before failing'],
    ],
    troubleshooting:
      'Errors saying the pool is exhausted usually mean a code path forgets to release its connection, or a slow query holds connections for seconds.',
    question: 'What happens to spare database connections that nobody has used for a while?',
  },
  {
    slug: 'api/rate-limiting',
    title: 'Rate limiting',
    subject: 'request rate limiting',
    intro:
      'Rate limiting protects the API from clients that send too many requests, using a token bucket per API key.',
    how: [
      'Each key has a bucket that refills at a steady rate; every request takes one token, and a request that finds the bucket empty is rejected with status 429.',
      'The bucket size allows short bursts above the steady rate without rejecting them.',
      'The response includes a Retry-After header telling the client how many seconds to wait.',
    ],
    settings: [
      ['limits.requestsPerMinute', 'the refill rate of each bucket'],
      ['limits.burst', 'the bucket size, that is the largest burst accepted at once'],
    ],
    troubleshooting:
      'Clients that ignore Retry-After and retry at once stay throttled; make them honour the header.',
    question: 'Why do my calls get refused with 429 when I send a lot of them quickly?',
  },
  {
    slug: 'security/tls-certificates',
    title: 'TLS certificates',
    subject: 'TLS certificates',
    intro:
      'Every public endpoint is served over HTTPS with certificates issued automatically through the ACME protocol by Let’s Encrypt.',
    how: [
      'Certificates are valid for ninety days and renewal starts thirty days before expiry.',
      'Domain ownership is proven with an HTTP-01 challenge file served under /.well-known/acme-challenge, or with a DNS-01 TXT record for wildcard names.',
      'The private key never leaves the server that requested the certificate.',
    ],
    settings: [
      ['tls.email', 'the address that receives expiry warnings from the certificate authority'],
      ['tls.challenge', 'http-01 or dns-01; wildcard certificates need dns-01'],
    ],
    troubleshooting:
      'A renewal that keeps failing is usually a firewall blocking port 80 for the HTTP-01 challenge.',
    question: 'How long before expiry is the HTTPS certificate renewed, and how is domain ownership proven?',
  },
  {
    slug: 'network/dns-caching',
    title: 'DNS caching',
    subject: 'DNS resolution and caching',
    intro:
      'Resolvers cache DNS answers for the time-to-live (TTL) published with each record, which is why a changed record can take a while to reach every client.',
    how: [
      'Lower the TTL of a record a day before you plan to move it, so that caches expire quickly during the switch.',
      'Negative answers (NXDOMAIN) are cached too, for the minimum TTL of the zone’s SOA record.',
      'Applications that resolve a name once at startup keep using the old address until they restart.',
    ],
    settings: [
      ['dns.ttlSeconds', 'the TTL published for records managed by the platform'],
      ['resolver.cacheSize', 'how many answers the local resolver keeps'],
    ],
    troubleshooting:
      'If some users still reach the old server after a migration, compare the record TTL with the time since the change.',
    question:
      'After I point my domain to a new server address, why do some people keep reaching the old one?',
  },
  {
    slug: 'operations/log-rotation',
    title: 'Log rotation',
    subject: 'log rotation',
    intro:
      'Log files grow without bound unless they are rotated: renamed, compressed and eventually deleted on a schedule.',
    how: [
      'Rotation happens daily or when a file exceeds its size limit, whichever comes first.',
      'Rotated files are compressed with gzip and kept for fourteen generations before the oldest is removed.',
      'The service reopens its log file on SIGHUP so that it writes to the new file after a rotation.',
    ],
    settings: [
      ['logs.maxSizeMb', 'the size at which a file is rotated early'],
      ['logs.keep', 'how many rotated files are kept'],
    ],
    troubleshooting:
      'A disk that fills up with logs anyway often means the process never received SIGHUP and still writes to a deleted file.',
    question: 'My disk keeps filling with old output files — how many are kept and when are they compressed?',
  },
  {
    slug: 'database/backup-restore',
    title: 'Backups and point-in-time recovery',
    subject: 'database backups',
    intro:
      'The database is backed up with a nightly snapshot plus continuous archiving of the write-ahead log (WAL), which allows point-in-time recovery.',
    how: [
      'To recover, the latest snapshot taken before the target time is restored and the archived WAL is replayed up to that exact moment.',
      'Snapshots are kept for thirty days and WAL segments for seven.',
      'A restore is always made into a new instance, never over the running one.',
    ],
    settings: [
      ['backup.schedule', 'the cron expression of the nightly snapshot'],
      ['backup.walRetentionDays', 'how long archived WAL segments are kept'],
    ],
    troubleshooting: 'Test restores monthly: a backup that has never been restored is not a backup.',
    question:
      'Someone dropped a table by mistake at 14:05 — can we restore the database to how it was just before?',
  },
  {
    slug: 'web/cdn-cache-invalidation',
    title: 'CDN cache invalidation',
    subject: 'the CDN cache',
    intro:
      'Static assets and cacheable pages are served from the CDN edge; invalidation (purging) removes stale copies after a deploy.',
    how: [
      'Assets with a content hash in their file name never need purging, because a new build produces new names.',
      'HTML pages are purged by path after each deploy, which takes up to two minutes to reach every edge location.',
      'Cache keys include the query string unless the route says otherwise.',
    ],
    settings: [
      ['cdn.purgeOnDeploy', 'purge HTML paths automatically after a deploy'],
      ['cdn.maxAge', 'the Cache-Control max-age sent for pages'],
    ],
    troubleshooting: 'Visitors seeing an old stylesheet usually means the asset name has no content hash.',
    question:
      'Visitors still see the previous version of the site after we shipped — how do we clear the edge copies?',
  },
  {
    slug: 'product/feature-flags',
    title: 'Feature flags',
    subject: 'feature flags',
    intro:
      'Feature flags turn code paths on or off at runtime, so that unfinished work can be merged and released to a fraction of users.',
    how: [
      'A flag evaluates to on or off per user; percentage rollouts hash the user id so a given user gets a stable answer.',
      'Flags are read from a local copy refreshed every thirty seconds, so evaluation never waits on the network.',
      'Remove a flag once it has been fully on for two weeks; stale flags make the code hard to follow.',
    ],
    settings: [
      ['flags.refreshSeconds', 'how often the local copy of flag rules is refreshed'],
      ['flags.defaultOff', 'what an unknown flag evaluates to'],
    ],
    troubleshooting:
      'A user flipping between variants means the rollout hashes something other than a stable user id.',
    question: 'How can I show a half-finished feature to ten percent of customers without a separate deploy?',
  },
  {
    slug: 'deploy/blue-green',
    title: 'Blue-green deployment',
    subject: 'blue-green deployment',
    intro:
      'Blue-green deployment runs two identical environments; the new release goes to the idle one and traffic is switched over at the load balancer.',
    how: [
      'Because the previous environment keeps running, rolling back is just switching traffic back.',
      'Database schema changes must work with both releases, so they are made in backward-compatible steps.',
      'The idle environment is kept for one hour after a switch and then scaled down.',
    ],
    settings: [
      ['deploy.strategy', 'blue-green or rolling'],
      ['deploy.keepPreviousMinutes', 'how long the previous environment stays up'],
    ],
    troubleshooting:
      'Sessions lost at switch time mean sessions are kept in process memory rather than in a shared store.',
    question: 'Is there a way to release a new version and go back instantly if it turns out broken?',
  },
  {
    slug: 'kubernetes/probes',
    title: 'Liveness and readiness probes',
    subject: 'Kubernetes health probes',
    intro:
      'Kubernetes checks each container with probes: the liveness probe restarts a stuck container and the readiness probe takes a container out of the Service while it cannot serve.',
    how: [
      'A failing readiness probe removes the pod from load balancing without restarting it.',
      'A failing liveness probe restarts the container, so it must not depend on downstream services or one outage restarts everything.',
      'A startup probe holds the other probes back while a slow application boots.',
    ],
    settings: [
      ['probes.periodSeconds', 'how often a probe runs'],
      ['probes.failureThreshold', 'how many failures in a row trigger the action'],
    ],
    troubleshooting:
      'Pods restarting in a loop during a database outage means the liveness check calls the database.',
    question: 'Our pods keep getting restarted whenever the database is down — what are we doing wrong?',
  },
  {
    slug: 'auth/oauth-refresh-tokens',
    title: 'OAuth refresh tokens',
    subject: 'OAuth token refresh',
    intro:
      'Access tokens are short-lived (fifteen minutes); clients use a refresh token to get a new access token without asking the user to sign in again.',
    how: [
      'Refresh tokens rotate: every use returns a new refresh token and invalidates the old one.',
      'Presenting an already used refresh token revokes the whole token family, since it suggests the token was stolen.',
      'Refresh tokens expire after thirty days without use.',
    ],
    settings: [
      ['oauth.accessTokenTtl', 'the lifetime of access tokens'],
      ['oauth.refreshIdleDays', 'how long an unused refresh token stays valid'],
    ],
    troubleshooting:
      'Users logged out unexpectedly often run two tabs that race to use the same refresh token.',
    question: 'Why do people get signed out when the app is open in two browser tabs at once?',
  },
  {
    slug: 'security/password-hashing',
    title: 'Password hashing',
    subject: 'password storage',
    intro: 'Passwords are never stored; only a slow, salted hash computed with Argon2id is kept.',
    how: [
      'Each hash has its own random salt, so equal passwords produce different hashes.',
      'The memory cost is 64 MiB and the time cost three iterations, tuned so that one hash takes about 100 ms on our servers.',
      'Hashes with outdated parameters are upgraded transparently the next time the user signs in.',
    ],
    settings: [
      ['argon2.memoryKiB', 'the memory cost'],
      ['argon2.iterations', 'the time cost'],
    ],
    troubleshooting:
      'Sign-in latency spikes under load are expected: the hash is slow on purpose; scale the auth workers instead.',
    question: 'Which algorithm do we use to keep user passwords safe, and how slow is it?',
  },
  {
    slug: 'messaging/dead-letter-queues',
    title: 'Dead-letter queues',
    subject: 'message queues',
    intro:
      'Consumers read messages from queues and acknowledge them when done; a message that keeps failing is moved to a dead-letter queue instead of blocking the others.',
    how: [
      'A message is redelivered up to five times with a growing delay before it is dead-lettered.',
      'Dead-lettered messages keep their original headers plus the last error, so they can be inspected.',
      'An operator can replay dead-lettered messages to the original queue once the bug is fixed.',
    ],
    settings: [
      ['queue.maxDeliveries', 'attempts before a message is dead-lettered'],
      ['queue.deadLetterTtlDays', 'how long dead-lettered messages are kept'],
    ],
    troubleshooting:
      'A growing dead-letter queue is an alert in itself; look at the last error stored with the messages.',
    question:
      'Where do queue messages end up when the consumer keeps crashing on them, and can I process them again later?',
  },
  {
    slug: 'jobs/cron-scheduling',
    title: 'Scheduled jobs',
    subject: 'scheduled jobs',
    intro:
      'Recurring jobs are declared with cron expressions and run by the scheduler, which guarantees that one run happens at a time.',
    how: [
      'Schedules are evaluated in UTC unless the job names a time zone; in a named zone a job at 02:30 may be skipped or run twice when daylight saving time changes.',
      'If a run is still going when the next one is due, the next one is skipped rather than started in parallel.',
      'Missed runs during downtime are not replayed.',
    ],
    settings: [
      ['jobs.<name>.schedule', 'the cron expression'],
      ['jobs.<name>.timezone', 'an IANA zone such as Europe/Paris'],
    ],
    troubleshooting:
      'A job that ran twice one night in March or October ran in a local zone across a clock change.',
    question: 'My nightly task executed two times on the night the clocks went back — why?',
  },
  {
    slug: 'search/full-text-search',
    title: 'Full-text search',
    subject: 'full-text search',
    intro:
      'Search uses an inverted index with BM25 ranking: documents that contain the query words more often, in shorter fields, rank higher.',
    how: [
      'Words are lower-cased and stemmed, so that “indexing” finds “indexed” and “indexes”.',
      'Very common words such as “the” are ignored because they appear in almost every document and carry no signal.',
      'Title matches weigh four times more than body matches.',
    ],
    settings: [
      ['search.stemmer', 'porter or none'],
      ['search.titleWeight', 'the weight of the title field'],
    ],
    troubleshooting: 'If a word is not found in any form, check the language of the stemmer.',
    question: 'Why does looking for "indexing" also bring up pages that only say "indexed"?',
  },
  {
    slug: 'media/image-resizing',
    title: 'Image resizing',
    subject: 'image processing',
    intro:
      'Uploaded images are resized on demand into thumbnails and responsive variants, and the results are cached.',
    how: [
      'A variant is requested by adding width and format parameters to the image URL, for example ?w=320&fm=webp.',
      'Widths are rounded up to the nearest allowed size to keep the number of cached variants small.',
      'EXIF metadata, including GPS location, is stripped from every variant.',
    ],
    settings: [
      ['images.allowedWidths', 'the widths variants are rounded to'],
      ['images.quality', 'the encoder quality for JPEG and WebP'],
    ],
    troubleshooting: 'Blurry thumbnails usually come from a requested width larger than the original.',
    question: 'How do I get a small webp version of a picture someone uploaded?',
  },
  {
    slug: 'realtime/websocket-heartbeats',
    title: 'WebSocket heartbeats',
    subject: 'WebSocket connections',
    intro:
      'Long-lived WebSocket connections are kept alive with heartbeats, because proxies close connections that stay silent.',
    how: [
      'The server sends a ping frame every twenty-five seconds and closes the connection if no pong arrives within ten.',
      'Most load balancers drop idle connections after sixty seconds, which is why the interval is shorter.',
      'Clients reconnect with exponential backoff and resubscribe to their channels.',
    ],
    settings: [
      ['ws.pingIntervalSeconds', 'time between pings'],
      ['ws.pongTimeoutSeconds', 'how long to wait for a pong'],
    ],
    troubleshooting:
      'Connections dropping every minute exactly point to a proxy idle timeout shorter than the ping interval.',
    question:
      'Our websocket connections get dropped after about a minute without traffic — how do we keep them alive?',
  },
  {
    slug: 'web/cors',
    title: 'Cross-origin requests (CORS)',
    subject: 'CORS',
    intro:
      'Browsers block scripts from reading responses of another origin unless the server allows it with CORS headers.',
    how: [
      'For non-simple requests the browser first sends an OPTIONS preflight and checks Access-Control-Allow-Origin and Access-Control-Allow-Methods in the answer.',
      'Requests with cookies need Access-Control-Allow-Credentials and an explicit origin, never the * wildcard.',
      'Preflight answers are cached by the browser for the Access-Control-Max-Age seconds.',
    ],
    settings: [
      ['cors.origins', 'the list of allowed origins'],
      ['cors.credentials', 'whether cookies may be sent'],
    ],
    troubleshooting:
      'An error in the browser console while curl works fine is almost always a missing CORS header on the preflight.',
    question:
      'The browser refuses the response of our API called from another website, although curl works — what header is missing?',
  },
  {
    slug: 'database/migrations',
    title: 'Schema migrations',
    subject: 'schema migrations',
    intro:
      'Schema changes are applied by numbered migration files that run in order at deploy time and are recorded in a migrations table.',
    how: [
      'Each migration runs in a transaction, so a failing one leaves the schema unchanged.',
      'Migrations are forward-only in production: to undo one, write a new migration that reverses it.',
      'Renaming a column is done in three deploys: add the new column, copy and dual-write, then drop the old one.',
    ],
    settings: [
      ['migrations.dir', 'where migration files live'],
      ['migrations.lockTimeoutMs', 'how long a migration waits for table locks'],
    ],
    troubleshooting: 'A deploy stuck on migrations is often waiting for a lock held by a long-running query.',
    question: 'How do we undo a schema change that went out in the last release?',
  },
  {
    slug: 'runtime/memory-leaks',
    title: 'Finding memory leaks',
    subject: 'memory leaks',
    intro:
      'A process whose memory grows until it is killed usually keeps references it no longer needs: caches without limits, listeners never removed, closures holding large objects.',
    how: [
      'Take two heap snapshots some minutes apart and compare them; the objects whose count keeps growing are the leak.',
      'Retainer paths in the snapshot show which reference keeps an object alive.',
      'Unbounded Map caches are the most common cause; give every cache a size limit.',
    ],
    settings: [
      ['runtime.maxOldSpaceMb', 'the heap size limit'],
      ['runtime.heapSnapshotOnSignal', 'write a heap snapshot on SIGUSR2'],
    ],
    troubleshooting: 'Memory that grows after every deploy and then stabilises is warm-up, not a leak.',
    question:
      'The service uses more and more RAM until it gets killed — how do I find what is holding on to it?',
  },
  {
    slug: 'workflow/git-rebasing',
    title: 'Rebasing branches',
    subject: 'Git branches',
    intro:
      'Feature branches are rebased onto main before merging, so that history stays linear and every commit builds.',
    how: [
      'git rebase main replays your commits on top of the latest main; conflicts are resolved commit by commit.',
      'Never rebase a branch other people have based work on, because it rewrites commit ids.',
      'Push a rebased branch with --force-with-lease, which refuses if someone else pushed in the meantime.',
    ],
    settings: [
      ['git config pull.rebase true', 'rebase instead of merge on pull'],
      ['git config rerere.enabled true', 'remember conflict resolutions'],
    ],
    troubleshooting: 'If a rebase goes wrong, git rebase --abort returns the branch to where it was.',
    question: 'How do I safely update my pushed feature branch after replaying it on top of main?',
  },
  {
    slug: 'text/unicode-normalization',
    title: 'Unicode normalization',
    subject: 'Unicode text',
    intro:
      'The same visible text can be encoded in different ways: “é” is either one code point or an “e” followed by a combining accent.',
    how: [
      'Text is normalized to NFC before it is stored or compared, so that both encodings are equal.',
      'Usernames are additionally case-folded and checked against confusable characters such as Cyrillic “а”.',
      'String length in code points differs from length in bytes and in user-perceived characters (grapheme clusters).',
    ],
    settings: [
      ['text.normalization', 'NFC or NFKC'],
      ['usernames.confusables', 'reject names mixing scripts'],
    ],
    troubleshooting:
      'Two names that look identical but are not equal in the database were stored before normalization.',
    question:
      'Two usernames look exactly the same on screen but the database says they differ — how can that be?',
  },
  {
    slug: 'time/time-zones',
    title: 'Dates and time zones',
    subject: 'timestamps',
    intro: 'All timestamps are stored in UTC and converted to the viewer’s time zone only for display.',
    how: [
      'Store the IANA zone name (Europe/Paris), not an offset, because offsets change with daylight saving time.',
      'A local time can be ambiguous (it happens twice when clocks go back) or missing (when they go forward).',
      'Calendar arithmetic such as “same time tomorrow” must be done in the local zone, duration arithmetic in UTC.',
    ],
    settings: [
      ['display.defaultZone', 'the zone used when the viewer has none'],
      ['api.timestampFormat', 'RFC 3339 with Z'],
    ],
    troubleshooting:
      'Events shown one hour off for part of the year are stored with a fixed offset instead of a zone name.',
    question: 'Meeting times appear shifted by an hour during the summer — how should we save them?',
  },
  {
    slug: 'api/pagination',
    title: 'Cursor pagination',
    subject: 'paginated list endpoints',
    intro: 'List endpoints return results page by page with an opaque cursor rather than page numbers.',
    how: [
      'Pass the nextCursor value from one response to get the following page; an absent cursor means the end.',
      'Cursors encode the sort key of the last item, so pages stay consistent when items are inserted meanwhile, unlike offset paging.',
      'The page size defaults to fifty and is capped at two hundred.',
    ],
    settings: [
      ['api.defaultPageSize', 'items per page when none is given'],
      ['api.maxPageSize', 'the cap'],
    ],
    troubleshooting:
      'Duplicate or skipped items across pages come from offset paging over a changing list; switch to cursors.',
    question:
      'When I walk through a long list with page numbers I sometimes see the same item twice — how do I avoid it?',
  },
  {
    slug: 'storage/file-uploads',
    title: 'File uploads',
    subject: 'file uploads',
    intro:
      'Small files are uploaded in one multipart request; files over 100 MB use resumable uploads in chunks.',
    how: [
      'A resumable upload starts with a session request, then sends 8 MB parts that can be retried one by one.',
      'If the connection drops, the client asks the session which parts arrived and continues from there.',
      'Incomplete sessions are deleted after twenty-four hours.',
    ],
    settings: [
      ['uploads.maxSingleRequestMb', 'the size above which resumable uploads are required'],
      ['uploads.partSizeMb', 'the part size'],
    ],
    troubleshooting: 'Large uploads failing at the same percentage hit a proxy body size limit.',
    question:
      'Sending a 2 GB video keeps failing halfway on a flaky network — is there a way to continue where it stopped?',
  },
  {
    slug: 'email/deliverability',
    title: 'Email deliverability',
    subject: 'outgoing email',
    intro:
      'Mail from our domain is only accepted by large providers when the domain publishes SPF, DKIM and DMARC records.',
    how: [
      'SPF lists the servers allowed to send for the domain; DKIM signs each message with a key published in DNS.',
      'DMARC tells receivers what to do when both checks fail, and where to send aggregate reports.',
      'Bounces and complaints are tracked; addresses that bounce hard are suppressed automatically.',
    ],
    settings: [
      ['mail.dkimSelector', 'the selector of the DKIM key'],
      ['mail.dmarcPolicy', 'none, quarantine or reject'],
    ],
    troubleshooting:
      'Messages landing in spam after a provider change usually lack the new provider in the SPF record.',
    question: 'Our notification emails end up in the spam folder at Gmail — which DNS records do we need?',
  },
  {
    slug: 'network/load-balancing',
    title: 'Load balancing',
    subject: 'the load balancer',
    intro: 'The load balancer spreads requests over healthy instances with the least-connections algorithm.',
    how: [
      'Sticky sessions pin a client to one instance with a cookie; avoid them unless state cannot be shared.',
      'Instances failing health checks stop receiving new requests; in-flight requests are drained for thirty seconds.',
      'Connection draining during deploys prevents errors for requests that are still running.',
    ],
    settings: [
      ['lb.algorithm', 'least-connections or round-robin'],
      ['lb.drainSeconds', 'how long in-flight requests may finish'],
    ],
    troubleshooting:
      'Uneven load with sticky sessions enabled is expected: a few heavy clients stay on one instance.',
    question:
      'Why is one server much busier than the others when we pin visitors to a machine with a cookie?',
  },
  {
    slug: 'security/secrets-management',
    title: 'Secrets management',
    subject: 'secrets',
    intro:
      'Credentials such as API keys and database passwords live in the vault, never in the repository or in container images.',
    how: [
      'Services read secrets at startup through short-lived vault tokens bound to their workload identity.',
      'Secrets are rotated every ninety days; during rotation both the old and the new value are accepted for one hour.',
      'Every read of a secret is written to the audit log.',
    ],
    settings: [
      ['vault.path', 'where the service’s secrets live'],
      ['vault.rotationDays', 'the rotation period'],
    ],
    troubleshooting:
      'A key committed to Git by mistake must be rotated at once; deleting the commit is not enough.',
    question: 'Someone accidentally pushed an API key to our Git history — is removing the commit enough?',
  },
  {
    slug: 'observability/tracing',
    title: 'Distributed tracing',
    subject: 'distributed tracing',
    intro:
      'Every request gets a trace made of spans, one per operation, propagated between services in the W3C traceparent header.',
    how: [
      'Head sampling keeps ten percent of traces, decided at the first service so that a trace is complete or absent.',
      'Errors and slow requests are always kept by tail sampling in the collector.',
      'Span attributes must not contain personal data.',
    ],
    settings: [
      ['tracing.sampleRatio', 'the share of traces kept'],
      ['tracing.exporterEndpoint', 'the OTLP collector address'],
    ],
    troubleshooting:
      'Traces broken into pieces mean a service in the middle does not forward the traceparent header.',
    question:
      'Our request timelines stop at one particular service and continue as a separate trace — what is lost there?',
  },
  {
    slug: 'web/compression',
    title: 'Response compression',
    subject: 'HTTP compression',
    intro: 'Text responses are compressed with Brotli when the client accepts it and with gzip otherwise.',
    how: [
      'Responses smaller than 1 KB are sent uncompressed because the saving does not pay for the CPU.',
      'Images, video and archives are already compressed and are never compressed again.',
      'Static assets are compressed once at build time; dynamic responses on the fly at a lower level.',
    ],
    settings: [
      ['compression.minBytes', 'the smallest response compressed'],
      ['compression.brotliLevel', 'the level for dynamic responses'],
    ],
    troubleshooting:
      'A response compressed twice shows garbage in the browser: the proxy and the app both compress.',
    question: 'Should tiny JSON responses and JPEG images be gzipped too?',
  },
  {
    slug: 'resilience/retries-backoff',
    title: 'Retries with backoff',
    subject: 'retries',
    intro:
      'Calls to other services are retried on transient failures with exponential backoff and full jitter.',
    how: [
      'The delay doubles on each attempt, starting at 100 ms and capped at 10 s, and a random part of it is used so that clients do not retry in lockstep.',
      'Only idempotent operations are retried automatically; a payment is never sent twice.',
      'A retry budget limits retries to ten percent of calls so that an outage is not made worse.',
    ],
    settings: [
      ['retry.maxAttempts', 'attempts including the first'],
      ['retry.budgetRatio', 'the share of calls that may be retries'],
    ],
    troubleshooting: 'A thundering herd after an outage means the clients retry without jitter.',
    question:
      'When a downstream service comes back after an outage, all clients hammer it at the same instant — how to spread them out?',
  },
  {
    slug: 'data/csv-import',
    title: 'Importing CSV files',
    subject: 'CSV import',
    intro:
      'Spreadsheets are imported as CSV; the importer detects the delimiter and the character encoding before reading rows.',
    how: [
      'Files exported by Excel in some locales use semicolons as delimiters and Windows-1252 instead of UTF-8.',
      'A byte order mark at the start of the file is removed so that the first column name is read correctly.',
      'Rows that fail validation are collected into an error report instead of stopping the import.',
    ],
    settings: [
      ['import.delimiter', 'auto, comma, semicolon or tab'],
      ['import.encoding', 'auto, utf-8 or windows-1252'],
    ],
    troubleshooting:
      'Accented letters turning into strange symbols mean the file was read with the wrong encoding.',
    question:
      'After uploading a spreadsheet export, names with accents show up as weird characters — what went wrong?',
  },
  {
    slug: 'api/webhooks',
    title: 'Webhooks',
    subject: 'webhooks',
    intro: 'Webhooks notify your server of events by POSTing a JSON payload to the URL you registered.',
    how: [
      'Each delivery carries an HMAC-SHA256 signature of the body in the X-Signature header, computed with your endpoint secret.',
      'Verify the signature and reject deliveries whose timestamp is older than five minutes to prevent replays.',
      'Deliveries that do not get a 2xx answer within ten seconds are retried for up to three days.',
    ],
    settings: [
      ['webhooks.secret', 'the signing secret of an endpoint'],
      ['webhooks.timeoutSeconds', 'how long we wait for your answer'],
    ],
    troubleshooting:
      'Signature mismatches usually come from verifying a re-serialized body instead of the raw bytes.',
    question:
      'How can my server be sure an incoming event notification really came from you and is not a replay?',
  },
];

export interface GeneratedDoc {
  /** Path relative to the corpus root, e.g. `database/connection-pooling.md`. */
  path: string;
  content: string;
}

/** The corpus files: front matter, title, and sections in the house style. */
export function corpusFiles(): GeneratedDoc[] {
  return TOPICS.map((t) => {
    const settings = t.settings.map(([k, v]) => `- \`${k}\`: ${v}.`).join('\n');
    const example = t.settings
      .map(([k], i) => `${k.split(' ').pop()}: ${i === 0 ? 'default' : 'custom'}`)
      .join('\n');
    const content = [
      '---',
      `title: ${t.title}`,
      '---',
      '',
      `# ${t.title}`,
      '',
      t.intro,
      '',
      `This page explains how ${t.subject} works in a typical deployment, which settings matter and what to check when something goes wrong. ` +
        'Most teams configure it once during setup and revisit it when traffic grows or requirements change. The defaults are safe for small projects.',
      '',
      '## How it works',
      '',
      t.how.join(' '),
      '',
      `In production, ${t.subject} is monitored like any other part of the platform: dashboards show its behaviour over time and alerts fire when it leaves the expected range.`,
      '',
      '## Configuration',
      '',
      `The settings below control ${t.subject}. They are read when the service starts; change them in the configuration file and restart.`,
      '',
      settings,
      '',
      '```yaml',
      example,
      '```',
      '',
      '## Troubleshooting',
      '',
      `${t.troubleshooting} When in doubt, check the logs of the service first, then the metrics, and ask the platform team with the request id of a failing call.`,
      '',
    ].join('\n');
    return { path: `${t.slug}.md`, content };
  });
}

/** The 33 questions, each with the path of the one page that answers it. */
export function corpusQuestions(): Array<{ question: string; path: string }> {
  return TOPICS.map((t) => ({ question: t.question, path: `${t.slug}.md` }));
}
