import { describe, expect, it } from 'vitest';
import { NatsInsecureError, natsAccess } from './index.js';
import { NatsCredentialsError, natsCredentialsFrom, natsInboxPrefix } from './nats-auth.js';

describe('NATS credentials from the environment', () => {
  it('reads each form the client supports', () => {
    expect(natsCredentialsFrom({ NATS_USER: 'users', NATS_PASSWORD: 'pw' })).toEqual({
      kind: 'user',
      user: 'users',
      password: 'pw',
    });
    expect(natsCredentialsFrom({ NATS_TOKEN: 't' })).toEqual({ kind: 'token', token: 't' });
    expect(natsCredentialsFrom({ NATS_NKEY_SEED: 'SUAB' })).toEqual({ kind: 'nkey', seed: 'SUAB' });
    expect(natsCredentialsFrom({ NATS_CREDS: '/run/lore.creds' })).toEqual({
      kind: 'creds',
      file: '/run/lore.creds',
    });
    expect(natsCredentialsFrom({})).toBeUndefined();
  });

  it('names the variable that is wrong', () => {
    expect(() => natsCredentialsFrom({ NATS_USER: 'users' })).toThrow(/NATS_USER and NATS_PASSWORD/);
    expect(() => natsCredentialsFrom({ NATS_NKEY_SEED: 'UABC' })).toThrow(/NATS_NKEY_SEED/);
    expect(() => natsCredentialsFrom({ NATS_TOKEN: 't', NATS_CREDS: 'f' })).toThrow(NatsCredentialsError);
  });

  it('gives a user its own reply inbox', () => {
    expect(natsInboxPrefix({ NATS_USER: 'dms' })).toBe('_INBOX.dms');
    expect(natsInboxPrefix({ NATS_USER: 'dms', NATS_INBOX_PREFIX: '_INBOX.x' })).toBe('_INBOX.x');
  });

  it('refuses to connect without credentials unless told to, and then warns', () => {
    expect(() => natsAccess({ NATS_URL: 'nats://127.0.0.1:4222' }, () => {})).toThrow(NatsInsecureError);
    const warnings: string[] = [];
    expect(
      natsAccess({ NATS_URL: 'nats://127.0.0.1:4222', LORE_NATS_INSECURE: true }, (m) => warnings.push(m)),
    ).toEqual({ insecure: true });
    expect(warnings[0]).toMatch(
      /LORE_NATS_INSECURE=true: .*still refused unless this node's key signed them/,
    );
    // Only on loopback: anywhere else the flag must say it understands what it gives away.
    for (const url of [
      'nats://10.0.0.5:4222',
      'nats://127.0.0.1:4222,nats://nats-1.lore:4222',
      'nats.example.org',
    ])
      expect(() => natsAccess({ NATS_URL: url, LORE_NATS_INSECURE: true }, () => {})).toThrow(
        /only to a NATS on loopback.*LORE_NATS_INSECURE=i-understand/,
      );
    for (const url of ['nats://localhost:4222', 'nats://[::1]:4222', 'nats://127.0.0.2:4222'])
      expect(natsAccess({ NATS_URL: url, LORE_NATS_INSECURE: true }, () => {})).toEqual({ insecure: true });
    expect(
      natsAccess({ NATS_URL: 'nats://10.0.0.5:4222', LORE_NATS_INSECURE: 'i-understand' }, () => {}),
    ).toEqual({ insecure: true });
    // The all-in-one without NATS keeps its in-process bus and needs nothing.
    expect(natsAccess({}, () => {})).toEqual({});
  });
});
