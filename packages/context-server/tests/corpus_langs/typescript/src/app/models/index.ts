export { User } from "./user";
export * from "./role";
