import { describe, expect, it } from 'vitest';
import { describeFindings, foldLookalikes, scanSensitive } from './secrets.js';
import { entropy, SENSITIVE_RULES } from './sensitive-rules.js';

const labels = async (text: string) => (await scanSensitive(text)).map((f) => f.label);
const rule = (id: string) => SENSITIVE_RULES.find((r) => r.id === id)!;

describe('scanSensitive', () => {
  it.each([
    ['The payroll database password is Hunter2!', 'a password'],
    ['password: correcthorse99', 'a password'],
    ['Passwort = geheim123', 'a password'],
    ['le mot de passe est Soleil2024', 'a password'],
    ['la contraseña es Gato#77', 'a password'],
    ['admin пароль: qwerty123', 'a password'],
    ['The lab door code is 4711.', 'an access code or PIN'],
    ['PIN: 0815', 'an access code or PIN'],
    ['keypad combination 12-34-56', 'an access code or PIN'],
    ['Der Türcode lautet 2580', 'an access code or PIN'],
    ['production deploy token: dpl_9f8a7b6c5d4e3f2a1b0c', 'an API key or token'],
    ['Authorization: Bearer abcdef1234567890XYZ', 'an API key or token'],
    ['our key AKIAZ7QW3RT5YU8IOPLK opens the bucket', 'an API key or token'],
    ['use sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 for the model', 'an API key or token'],
    ['stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'an API key or token'],
    ['token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'an API key or token'],
    ['maps key AIzaSyA1234567890abcdefghijklmnopqrstuv', 'an API key or token'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n', 'a private key'],
    ['connect with postgres://payroll:s3cret@db.internal:5432/pay', 'a connection string with credentials'],
    ['Server=sql1;Database=hr;User Id=sa;Password=Pa55word;', 'a connection string with credentials'],
    ['seed value 9fK2xQ7vLm3Np8Rt6Wy1Zb4Hc5Jd0Gs', 'a secret key (a long random string)'],
    ['Write to jensen.okafor@example.com', 'an e-mail address'],
    ['Call +44 20 7946 0958 after six', 'a phone number'],
    ['phone: 030 1234567', 'a phone number'],
    ['(555) 010-0199 is the desk', 'a phone number'],
    ['Salary goes to DE89 3704 0044 0532 0130 00', 'a bank account number (IBAN)'],
    ['card 4111 1111 1111 1111 on file', 'a payment card number'],
    ['SSN 123-45-6789', 'a national id number'],
    ['National Insurance number AB 12 34 56 C', 'a national id number'],
    ['passport no. X1234567', 'a national id number'],
  ])('finds %j', async (text, label) => {
    expect(await labels(text)).toContain(label);
  });

  it.each([
    'TypeScript generics let a function keep the type of its argument.',
    'Use a password manager and rotate passwords every quarter; the password is stored in the vault.',
    'The HTTP status code 404 means not found; 503 means unavailable.',
    'Version 5.9.3 was released on 2026-03-14 with 1200 fixes.',
    'Quantum computers use qubits; a 127-qubit processor was announced in 2021.',
    'Sourdough needs 500 g flour, 350 g water and 10 g salt, baked at 250 degrees.',
    'Call the function with retries set to 3 and a timeout of 15000 ms.',
    'The token bucket algorithm refills at a fixed rate.',
    'internationalization and localization are long words without digits',
  ])('leaves ordinary text alone: %j', async (text) => {
    expect(await scanSensitive(text)).toEqual([]);
  });

  it('sees through invisible characters, full-width digits and look-alike letters', async () => {
    expect(await labels('pass\u200bword: hunter22')).toContain('a password');
    expect(await labels('pаssword: hunter22')).toContain('a password'); // Cyrillic а
    expect(await labels('door code ４７１１')).toContain('an access code or PIN');
    expect(foldLookalikes('pаsswоrd')).toBe('password');
    expect(foldLookalikes('пароль')).toBe('пароль');
  });

  it('uses the maintained secretlint detectors too', async () => {
    const f = await scanSensitive('token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
    expect(f.some((x) => x.rule.startsWith('secretlint:'))).toBe(true);
  });

  it("leaves nothing in the process's performance timeline (secretlint's profiler is off)", async () => {
    await scanSensitive('token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
    performance.clearMarks();
    performance.clearMeasures();
    for (let i = 0; i < 20; i++) await scanSensitive(`passage ${i}: nothing to see here`);
    await new Promise((r) => setImmediate(r));
    expect(performance.getEntriesByType('mark')).toEqual([]);
    expect(performance.getEntriesByType('measure')).toEqual([]);
  });

  it('scans several texts and names each kind once', async () => {
    const f = await scanSensitive(['password: abc12345', 'PASSWORD = xyz98765', 'mail a@b.co']);
    expect([...new Set(f.map((x) => x.label))]).toEqual(['a password', 'an e-mail address']);
    expect(f.find((x) => x.label === 'an e-mail address')?.kind).toBe('personal');
  });

  it('describes findings in words, never with the matched text', async () => {
    const f = await scanSensitive('password: hunter22 and mail jo@example.org');
    const d = describeFindings(f);
    expect(d).toBe('contains what looks like a password and an e-mail address');
    expect(d).not.toContain('hunter22');
    expect(describeFindings([])).toMatch(/nothing/);
  });
});

describe('rules', () => {
  it('checks IBANs and card numbers by their check digits', () => {
    expect(rule('iban').find('GB82 WEST 1234 5698 7654 32')).toBe(true);
    expect(rule('iban').find('GB83 WEST 1234 5698 7654 32')).toBe(false);
    expect(rule('card').find('4111111111111112')).toBe(false);
    expect(rule('card').find('0000000000000000')).toBe(false);
  });

  it('tells random strings from words and hashes of low entropy', () => {
    expect(entropy('aaaa')).toBe(0);
    expect(rule('high-entropy').find('supercalifragilisticexpialidocious2')).toBe(false);
    expect(rule('high-entropy').find('commit 0000000000000000000000000000000000000000')).toBe(false);
    expect(rule('high-entropy').find('commit 3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c9e2b4d6f8a')).toBe(true);
  });

  it('does not take a plain word after "password" for a password', () => {
    expect(rule('password').find('the password is rotated monthly')).toBe(false);
    expect(rule('password').find('the password is Rotated2026')).toBe(true);
  });

  it('needs eight digits for a phone number', () => {
    expect(rule('phone').find('+1 234')).toBe(false);
    expect(rule('phone').find('+1 234 567 8901')).toBe(true);
  });
});
