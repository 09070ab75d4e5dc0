import { z } from "zod";

/** `sender.id`, `repository.owner.id`, `authorizations[].user_id` (`[]`: every element). */
export const jsonPath = z
  .string()
  .regex(/^[A-Za-z0-9_$@-]+(\[\])?(\.[A-Za-z0-9_$@-]+(\[\])?)*$/, "must be a dot path like sender.id or authorizations[].user_id");
