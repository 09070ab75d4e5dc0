-- AlterTable
ALTER TABLE "delivery" ADD COLUMN     "claim_count" INTEGER NOT NULL DEFAULT 0;

