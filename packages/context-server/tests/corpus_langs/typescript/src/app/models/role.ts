export enum Role {
  Customer,
  Staff,
}
