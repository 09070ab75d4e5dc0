-- Verification tokens (Notion's): every one received is kept, none is in force until an owner or
-- admin confirms it. A token held before this migration was put in force by arriving, so it may be
-- a forger's: it is kept, unconfirmed — confirm it in the console (Connectors → Notion) after upgrading.
-- AlterTable (the id is added nullable, filled for existing rows, then made the key)
ALTER TABLE "webhook_verification_token" DROP CONSTRAINT "webhook_verification_token_pkey",
ADD COLUMN     "confirmed_at" TIMESTAMP(3),
ADD COLUMN     "id" TEXT;

UPDATE "webhook_verification_token" SET "id" = 'vtk_' || md5("deployment_id" || ':' || "connector" || ':' || random()::text) WHERE "id" IS NULL;

ALTER TABLE "webhook_verification_token" ALTER COLUMN "id" SET NOT NULL,
ADD CONSTRAINT "webhook_verification_token_pkey" PRIMARY KEY ("id");

-- CreateTable
CREATE TABLE "inbound_body_digest" (
    "deployment_id" TEXT NOT NULL,
    "connector" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "dedupe_key" TEXT NOT NULL,
    "seen_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "inbound_body_digest_pkey" PRIMARY KEY ("deployment_id","connector","digest")
);

-- CreateIndex
CREATE INDEX "inbound_body_digest_deployment_id_connector_seen_at_idx" ON "inbound_body_digest"("deployment_id", "connector", "seen_at");

-- CreateIndex
CREATE INDEX "webhook_verification_token_deployment_id_connector_received_idx" ON "webhook_verification_token"("deployment_id", "connector", "received_at");

-- AddForeignKey
ALTER TABLE "inbound_body_digest" ADD CONSTRAINT "inbound_body_digest_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
