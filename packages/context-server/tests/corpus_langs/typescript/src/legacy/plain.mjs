import lodash from "lodash";

/** Mentions User and AccountService only in prose. */
export const plain = lodash.identity("AccountService");
