-- DropIndex
DROP INDEX "connected_account_connector_external_id_idx";

-- CreateIndex
CREATE INDEX "connected_account_deployment_id_connector_external_id_idx" ON "connected_account"("deployment_id", "connector", "external_id");

