/** An administrator: another User type, in another module. */
export class User {
  constructor(readonly login: string, readonly superuser: boolean) {}
}
