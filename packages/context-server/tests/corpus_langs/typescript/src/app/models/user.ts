/** The shop's customer account. */
export class User {
  constructor(readonly name: string) {}
}
