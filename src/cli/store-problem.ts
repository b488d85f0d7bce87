/** A store the CLI cannot open or use: one line naming the problem and the fix, exit code 5. */
export class StoreProblem extends Error {
  override readonly name = 'StoreProblem';
}
