const { format } = require("../shared/util");
import { Role } from "../app/models/role.js";

// require("../app/service") is only a comment
export function report(total) {
  return `${format(total)} for ${Role.Customer} "../app/config"`;
}
