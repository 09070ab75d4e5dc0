-- One cursor store: every change reader's position moves to change_position (src/changes/positions.ts).

-- CreateTable
CREATE TABLE "change_position" (
    "connected_account_id" TEXT NOT NULL,
    "reader" TEXT NOT NULL,
    "cursor" TEXT NOT NULL,

    CONSTRAINT "change_position_pkey" PRIMARY KEY ("connected_account_id","reader")
);

-- AddForeignKey
ALTER TABLE "change_position" ADD CONSTRAINT "change_position_connected_account_id_fkey" FOREIGN KEY ("connected_account_id") REFERENCES "connected_account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The connection's own reader (Gmail's historyId, Dropbox's cursor, the declared polled readers'
-- positions by trigger): its position was the connection's cursor.
INSERT INTO "change_position" ("connected_account_id", "reader", "cursor")
SELECT "id", '', "cursor" FROM "connected_account" WHERE "cursor" IS NOT NULL;

-- A subscription's reader (a Graph delta link, a Calendar sync token): keyed by the subscription.
INSERT INTO "change_position" ("connected_account_id", "reader", "cursor")
SELECT "connected_account_id", "id", "cursor" FROM "provider_subscription" WHERE "cursor" IS NOT NULL;

-- AlterTable
ALTER TABLE "connected_account" DROP COLUMN "cursor";

-- AlterTable
ALTER TABLE "provider_subscription" DROP COLUMN "cursor";
