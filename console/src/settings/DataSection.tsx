import type { ResultOf } from "@graphql-typed-document-node/core";
import { type FormEvent, useId, useState } from "react";
import { useMutation, useQuery } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { Field } from "../components/Field.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { useConfirmedMutation } from "../components/useConfirmedMutation.ts";
import { describeError, fieldErrors } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import type { SectionProps } from "./types.ts";

const DataItemsQuery = graphql(`
  query ConsoleDataItems($id: ID!, $offset: Int!, $limit: Int!) {
    deployment(id: $id) {
      id
      dataItems(offset: $offset, limit: $limit) {
        nodes { id name description }
        totalCount
        offset
        limit
        pageInfo { hasNextPage hasPreviousPage }
      }
    }
  }
`);

const CreateDataItemMutation = graphql(`
  mutation ConsoleCreateDataItem($deploymentId: ID!, $name: String!, $description: String!) {
    createDataItem(deploymentId: $deploymentId, name: $name, description: $description) { id name description }
  }
`);

const UpdateDataItemMutation = graphql(`
  mutation ConsoleUpdateDataItem($id: ID!, $name: String, $description: String) {
    updateDataItem(id: $id, name: $name, description: $description) { id name description }
  }
`);

const DeleteDataItemMutation = graphql(`
  mutation ConsoleDeleteDataItem($id: ID!) {
    deleteDataItem(id: $id) { id }
  }
`);

type Item = NonNullable<ResultOf<typeof DataItemsQuery>["deployment"]>["dataItems"]["nodes"][number];

/** The records GET /api/data lists for this deployment, a page at a time (offset/limit), editable. */
export function DataSection({ deploymentId, canManage }: SectionProps) {
  const [offset, setOffset] = useState(0);
  const [limit, setLimit] = useState(10);
  const [{ data, fetching, error }, refetch] = useQuery({ query: DataItemsQuery, variables: { id: deploymentId, offset, limit } });
  const [editing, setEditing] = useState<string>();
  const limitId = useId();
  const page = data?.deployment?.dataItems;
  const reload = () => refetch({ requestPolicy: "network-only" });
  const deletion = useConfirmedMutation(DeleteDataItemMutation, {
    variables: (item: Item) => ({ id: item.id }),
    success: (item) => `Deleted "${item.name}".`,
    done: () => {
      // Deleting the last item of a page goes back one page.
      if (page && page.nodes.length === 1 && offset > 0) setOffset(Math.max(0, offset - limit));
      else reload();
    },
  });
  const deleting = deletion.subject;

  return (
    <section className="panel" aria-labelledby="data-title">
      <h2 id="data-title">Data</h2>
      <p className="muted">
        What <code>GET /api/data?offset=&amp;limit=</code> returns to a caller with this deployment's API key, ordered by id.
      </p>
      {canManage && <AddItem deploymentId={deploymentId} onAdded={reload} />}
      {error && !data && <LoadError error={error} retry={reload} />}
      {fetching && !data && <Loading what="Loading data items" />}
      {page && page.totalCount === 0 && <Empty title="No data items yet">{canManage ? "Add the first one above." : ""}</Empty>}
      {page && page.nodes.length > 0 && (
        <table className="table" aria-label="Data items">
          <thead>
            <tr>
              <th scope="col">ID</th>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              {canManage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {page.nodes.map((item) =>
              editing === item.id ? (
                <EditRow key={item.id} item={item} onDone={() => (setEditing(undefined), reload())} onCancel={() => setEditing(undefined)} />
              ) : (
                <tr key={item.id}>
                  <td data-label="ID">{item.id}</td>
                  <td data-label="Name">{item.name}</td>
                  <td data-label="Description">{item.description}</td>
                  {canManage && (
                    <td className="row-actions">
                      <button type="button" className="button small" onClick={() => setEditing(item.id)} aria-label={`Edit ${item.name}`}>
                        Edit
                      </button>
                      <button type="button" className="button small danger" onClick={() => deletion.ask(item)} aria-label={`Delete ${item.name}`}>
                        Delete
                      </button>
                    </td>
                  )}
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
      {page && page.totalCount > 0 && (
        <div className="pager">
          <span>
            {page.nodes.length ? `${page.offset + 1}–${page.offset + page.nodes.length}` : "none"} of {page.totalCount}
          </span>
          <label htmlFor={limitId}>Per page</label>
          <select
            id={limitId}
            value={limit}
            onChange={(e) => {
              setLimit(Number(e.target.value));
              setOffset(0);
            }}
          >
            {[10, 25, 50, 100].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
          <button type="button" className="button small" disabled={!page.pageInfo.hasPreviousPage} onClick={() => setOffset(Math.max(0, offset - limit))}>
            ‹ Previous
          </button>
          <button type="button" className="button small" disabled={!page.pageInfo.hasNextPage} onClick={() => setOffset(offset + limit)}>
            Next ›
          </button>
        </div>
      )}
      <ConfirmDialog {...deletion.dialog} title="Delete this item?" confirmLabel="Delete" danger>
        <p>
          “{deleting?.name}” (id {deleting?.id}) is removed from <code>/api/data</code> at once. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function AddItem({ deploymentId, onAdded }: { deploymentId: string; onAdded(): void }) {
  const [values, setValues] = useState({ name: "", description: "" });
  const [{ fetching, error }, create] = useMutation(CreateDataItemMutation);
  const toast = useToast();
  const fields = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ deploymentId, ...values });
    if (result.data) {
      toast.success(`Added "${result.data.createDataItem.name}".`);
      setValues({ name: "", description: "" });
      onAdded();
    }
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Add a data item">
      <Field label="Name" name="itemName" required value={values.name} onChange={(e) => setValues({ ...values, name: e.target.value })} error={fields.name} />
      <Field
        label="Description"
        name="itemDescription"
        value={values.description}
        onChange={(e) => setValues({ ...values, description: e.target.value })}
        error={fields.description}
      />
      <button type="submit" className="button primary" disabled={fetching || !values.name.trim()}>
        {fetching ? "Adding…" : "Add item"}
      </button>
      {error && Object.keys(fields).length === 0 && (
        <div className="form-error" role="alert">
          {describeError(error)}
        </div>
      )}
    </form>
  );
}

function EditRow({ item, onDone, onCancel }: { item: Item; onDone(): void; onCancel(): void }) {
  const [values, setValues] = useState({ name: item.name, description: item.description });
  const [{ fetching, error }, update] = useMutation(UpdateDataItemMutation);
  const fields = fieldErrors(error);
  const save = async () => {
    const result = await update({ id: item.id, ...values });
    if (result.data) onDone();
  };
  return (
    <tr className="editing">
      <td data-label="ID">{item.id}</td>
      <td data-label="Name">
        <input
          aria-label="Name"
          value={values.name}
          autoFocus
          onChange={(e) => setValues({ ...values, name: e.target.value })}
          onKeyDown={(e) => (e.key === "Enter" ? void save() : e.key === "Escape" ? onCancel() : undefined)}
          aria-invalid={fields.name ? true : undefined}
        />
        {fields.name && <div className="field-error">{fields.name}</div>}
      </td>
      <td data-label="Description">
        <input
          aria-label="Description"
          value={values.description}
          onChange={(e) => setValues({ ...values, description: e.target.value })}
          onKeyDown={(e) => (e.key === "Enter" ? void save() : e.key === "Escape" ? onCancel() : undefined)}
          aria-invalid={fields.description ? true : undefined}
        />
        {fields.description && <div className="field-error">{fields.description}</div>}
        {error && Object.keys(fields).length === 0 && <div className="field-error">{describeError(error)}</div>}
      </td>
      <td className="row-actions">
        <button type="button" className="button small primary" onClick={save} disabled={fetching}>
          Save
        </button>
        <button type="button" className="button small" onClick={onCancel}>
          Cancel
        </button>
      </td>
    </tr>
  );
}
