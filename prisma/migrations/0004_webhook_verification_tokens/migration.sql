-- CreateTable
CREATE TABLE "webhook_verification_token" (
    "deployment_id" TEXT NOT NULL,
    "connector" TEXT NOT NULL,
    "token_encrypted" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_verification_token_pkey" PRIMARY KEY ("deployment_id","connector")
);

-- AddForeignKey
ALTER TABLE "webhook_verification_token" ADD CONSTRAINT "webhook_verification_token_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

