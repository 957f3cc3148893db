import React from "react";
import { UserCard } from "./card";
import { User } from "./models/user";
import { format } from "@shared";

/* <UserCard user={Role.Staff} /> in a comment is no use */
export function Panel() {
  const admin = new User("root", true);
  return (
    <div title="User Role">
      <UserCard user={admin} />
      {format(1)}
    </div>
  );
}
