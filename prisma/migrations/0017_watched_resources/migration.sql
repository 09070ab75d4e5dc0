-- AlterTable
ALTER TABLE "provider_subscription" ADD COLUMN     "resource_params" JSONB,
ADD COLUMN     "watched_resource_id" TEXT;

-- AlterTable
ALTER TABLE "trigger_event" ADD COLUMN     "resource" JSONB;

-- CreateTable
CREATE TABLE "watched_resource" (
    "id" TEXT NOT NULL,
    "connected_account_id" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "params_key" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "watched_resource_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscription_plan_change" (
    "id" BIGSERIAL NOT NULL,
    "connected_account_id" TEXT,
    "deployment_id" TEXT,
    "connector" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscription_plan_change_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "watched_resource_connected_account_id_params_key_key" ON "watched_resource"("connected_account_id", "params_key");

-- CreateIndex
CREATE INDEX "provider_subscription_watched_resource_id_idx" ON "provider_subscription"("watched_resource_id");

-- AddForeignKey
ALTER TABLE "watched_resource" ADD CONSTRAINT "watched_resource_connected_account_id_fkey" FOREIGN KEY ("connected_account_id") REFERENCES "connected_account"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Written by hand below (Prisma has no partial or expression indexes, data moves or triggers).

-- One live subscription per (account, watched resource, provider resource): a connection watching
-- two Trello boards holds two webhooks whose declared resource is the same "".
DROP INDEX "provider_subscription_live_key";
CREATE UNIQUE INDEX "provider_subscription_live_key" ON "provider_subscription"("connected_account_id", COALESCE("watched_resource_id", ''), "resource") WHERE "status" <> 'DELETED';

-- Connections made before resources existed named their one resource with their connector's path
-- parameters (params[project_id]): that becomes their first watched resource, and their live
-- provider subscriptions are linked to it as they are, so nothing is made again at the provider.
-- The list is every connector that declared path parameters when this was written.
WITH "map"("connector", "names") AS (
  VALUES ('gitlab', ARRAY['project_id']), ('airtable', ARRAY['base_id']), ('bitbucket', ARRAY['workspace', 'repo_slug']),
         ('box', ARRAY['folder_id']), ('clickup', ARRAY['team_id']), ('figma', ARRAY['team_id']), ('monday', ARRAY['board_id']),
         ('sharepoint', ARRAY['site_id']), ('trello', ARRAY['board']), ('asana', ARRAY['project']), ('typeform', ARRAY['form_id'])
), "named" AS (
  SELECT a."id" AS "account_id", a."created_at",
         (SELECT jsonb_object_agg(n, a."params" ->> n) FROM unnest(m."names") n) AS "params",
         (SELECT string_agg(n || '=' || (a."params" ->> n), '&' ORDER BY n COLLATE "C") FROM unnest(m."names") n) AS "params_key"
    FROM "connected_account" a JOIN "map" m ON m."connector" = a."connector"
   WHERE jsonb_typeof(a."params") = 'object'
     AND (SELECT bool_and(jsonb_typeof(a."params" -> n) = 'string') FROM unnest(m."names") n)
)
INSERT INTO "watched_resource" ("id", "connected_account_id", "params", "params_key", "created_at")
SELECT 'res_' || substr(md5("account_id" || ' ' || "params_key"), 1, 24), "account_id", "params", "params_key", "created_at" FROM "named";

UPDATE "provider_subscription" s SET "watched_resource_id" = r."id", "resource_params" = r."params"
  FROM "watched_resource" r
 WHERE r."connected_account_id" = s."connected_account_id" AND s."status" <> 'DELETED';

-- What the subscription manager plans again (src/subscriptions/queue/changes.ts): every write that
-- can change which subscriptions a connection wants leaves a row, in the writer's own transaction,
-- whichever module or instance wrote it. The manager's idle plan reads an empty table.
CREATE FUNCTION "subscription_plan_connection_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "subscription_plan_change" ("connected_account_id") VALUES (OLD."connected_account_id");
  ELSIF TG_TABLE_NAME = 'connected_account' THEN
    INSERT INTO "subscription_plan_change" ("connected_account_id") VALUES (NEW."id");
  ELSE
    INSERT INTO "subscription_plan_change" ("connected_account_id") VALUES (NEW."connected_account_id");
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "subscription_plan_triggers_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "subscription_plan_change" ("deployment_id", "connector") VALUES (OLD."deployment_id", OLD."connector");
  ELSE
    INSERT INTO "subscription_plan_change" ("deployment_id", "connector") VALUES (NEW."deployment_id", NEW."connector");
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "connected_account_plan_inserted" AFTER INSERT ON "connected_account"
  FOR EACH ROW EXECUTE FUNCTION "subscription_plan_connection_changed"();
-- Token refreshes, polls and event times touch other columns: only what decides the subscriptions.
CREATE TRIGGER "connected_account_plan_changed" AFTER UPDATE OF "status", "params" ON "connected_account"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."params" IS DISTINCT FROM NEW."params")
  EXECUTE FUNCTION "subscription_plan_connection_changed"();
CREATE TRIGGER "watched_resource_plan_changed" AFTER INSERT OR DELETE ON "watched_resource"
  FOR EACH ROW EXECUTE FUNCTION "subscription_plan_connection_changed"();
CREATE TRIGGER "forwarding_trigger_plan_changed" AFTER INSERT OR DELETE ON "forwarding_trigger"
  FOR EACH ROW EXECUTE FUNCTION "subscription_plan_triggers_changed"();
