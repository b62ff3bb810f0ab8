/** A setting the process cannot start with: the message names its environment variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    /** What is wrong, without the variable's name: for a command that read the value from an option instead. */
    readonly problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}
