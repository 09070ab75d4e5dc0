-- An attempt is named by its delivery and number. Its own id column was read by nothing and cost
-- an index entry per forwarded event. The unique index on (delivery_id, number) becomes the primary
-- key as it is (renamed, not rebuilt), so the migration does not read the attempts again.
ALTER TABLE "delivery_attempt" DROP CONSTRAINT "delivery_attempt_pkey";
ALTER TABLE "delivery_attempt" DROP COLUMN "id";
ALTER TABLE "delivery_attempt" ADD CONSTRAINT "delivery_attempt_pkey" PRIMARY KEY USING INDEX "delivery_attempt_delivery_id_number_key";
