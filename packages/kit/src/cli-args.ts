import { Command, CommanderError, Option } from 'commander';
import { UsageError } from './serve.js';

/** One flag of a subcommand: `--name <value>` (string) or `--name` (boolean), with an optional one-letter alias. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
}

export type FlagValues<O extends Record<string, FlagSpec>> = {
  [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean;
};

/**
 * A subcommand's flags and operands, parsed by commander (the library every `lore` subcommand is
 * parsed with). A flag that is not declared, or a string flag without its value, is a `UsageError`
 * naming it (`unknown option '--stream'`). Values keep the flags' names (`values['base-uri']`).
 */
export function parseCommandLine<const O extends Record<string, FlagSpec>>(
  args: string[],
  options: O,
): { values: FlagValues<O>; positionals: string[] } {
  const command = new Command()
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .helpOption(false)
    .allowExcessArguments()
    .argument('[operands...]');
  const names = new Map<string, string>();
  for (const [flag, spec] of Object.entries(options)) {
    const option = new Option(
      `${spec.short ? `-${spec.short}, ` : ''}--${flag}${spec.type === 'string' ? ' <value>' : ''}`,
    );
    names.set(flag, option.attributeName());
    command.addOption(option);
  }
  try {
    command.parse(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) throw new UsageError(err.message.replace(/^error: /, ''));
    throw err;
  }
  const parsed = command.opts();
  const values: Record<string, unknown> = {};
  for (const [flag, attribute] of names)
    if (parsed[attribute] !== undefined) values[flag] = parsed[attribute];
  return { values: values as FlagValues<O>, positionals: command.args };
}
