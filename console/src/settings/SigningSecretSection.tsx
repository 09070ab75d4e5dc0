import { useState } from "react";
import { useQuery } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { LoadError, Loading } from "../components/States.tsx";
import { useConfirmedMutation } from "../components/useConfirmedMutation.ts";
import { graphql } from "../generated/gql.ts";
import type { SectionProps } from "./types.ts";

const SigningSecretQuery = graphql(`
  query ConsoleSigningSecret($id: ID!) {
    deployment(id: $id) { id signingSecret }
  }
`);

const RotateSigningSecretMutation = graphql(`
  mutation ConsoleRotateSigningSecret($deploymentId: ID!) {
    rotateSigningSecret(deploymentId: $deploymentId) { id signingSecret }
  }
`);

/** The Standard Webhooks secret forwarded requests are signed with: reveal, copy, rotate. */
export function SigningSecretSection({ deploymentId, canManage }: SectionProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: SigningSecretQuery, variables: { id: deploymentId }, pause: !canManage });
  const [revealed, setRevealed] = useState(false);
  const rotation = useConfirmedMutation(RotateSigningSecretMutation, {
    variables: () => ({ deploymentId }),
    success: () => "Signing secret rotated. The old one keeps signing alongside for 24 hours.",
  });
  const secret = data?.deployment?.signingSecret;

  return (
    <section className="panel" aria-labelledby="signing-title">
      <h2 id="signing-title">Signing secret</h2>
      <p className="muted">
        Every forwarded request carries <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers (Standard
        Webhooks). Verify them on your server with this secret.
      </p>
      {!canManage && <p className="empty-line">Only owners and admins can see the signing secret.</p>}
      {error && !data && <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />}
      {canManage && fetching && !data && <Loading />}
      {secret && (
        <>
          <div className="secret-line">
            <code data-testid="signing-secret">{revealed ? secret : `${secret.slice(0, 6)}${"•".repeat(24)}`}</code>
            <button type="button" className="button small" onClick={() => setRevealed(!revealed)} aria-pressed={revealed}>
              {revealed ? "Hide" : "Reveal"}
            </button>
            <CopyButton value={secret} />
          </div>
          <div className="actions">
            <button type="button" className="button" onClick={() => rotation.ask()} disabled={rotation.busy}>
              Rotate secret
            </button>
          </div>
        </>
      )}
      <ConfirmDialog {...rotation.dialog} title="Rotate the signing secret?" confirmLabel="Rotate">
        <p>
          A new secret signs every request from now on. For 24 hours the old one signs alongside it (two signatures in{" "}
          <code>webhook-signature</code>), so your server has a day to switch.
        </p>
      </ConfirmDialog>
    </section>
  );
}
