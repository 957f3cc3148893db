import type { User } from "./models/user";

export function UserCard(props: { user: User }) {
  return <span>{props.user.login}</span>;
}
