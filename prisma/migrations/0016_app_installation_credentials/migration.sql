-- AlterTable
ALTER TABLE "connector_credentials" ADD COLUMN     "app_id" TEXT,
ADD COLUMN     "app_slug" TEXT,
ADD COLUMN     "private_key_encrypted" TEXT;

