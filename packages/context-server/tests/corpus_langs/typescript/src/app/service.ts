import { EventEmitter } from "node:events";
import { User } from "./models";
import type { Config } from "@app/config";
import type { Mode } from "@app/config";
import * as util from "../shared/util.js";

// Decoys: import { User } from "../admin/models/user"; Role.Staff
const note = "import { Role } from './models/role'";

export class AccountService extends EventEmitter {
  constructor(private readonly config: Config) {
    super();
  }

  open(name: string): User {
    return new User(`${name} ${util.format(0)} ${note}`);
  }
}
