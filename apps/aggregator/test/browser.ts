import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/** Where the browser tests find Chromium: LORE_CHROMIUM_PATH, else Debian's package. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.LORE_CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

/**
 * Whether to run browser tests here. In CI a missing browser is a failure (the suite must not
 * pass by skipping); on a developer's machine without Chromium the suite is skipped.
 */
export function browserAvailable(): boolean {
  const path = chromiumPath();
  if (!path && process.env.CI)
    throw new Error(
      'Chromium is required in CI: install it (apt-get install chromium) or set LORE_CHROMIUM_PATH.',
    );
  return !!path;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath()!,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Screenshots land here (ignored by git); CI keeps the folder as the run's artefacts. */
export function artefactDir(): string {
  const dir = join(import.meta.dirname, '../artefacts/screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}
