-- AlterTable
ALTER TABLE "deployment" ADD COLUMN     "proxy_rate_limit_per_minute" INTEGER;

