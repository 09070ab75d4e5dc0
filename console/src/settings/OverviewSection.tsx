import type { ResultOf } from "@graphql-typed-document-node/core";
import { useEffect, useMemo, useRef, useState } from "react";
import { type CombinedError, useMutation, useQuery, useSubscription } from "urql";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { describeError } from "../errors.ts";
import { formatAge, formatDate } from "../format.ts";
import { graphql } from "../generated/gql.ts";
import { ForwardingHealth } from "./health.tsx";
import type { SectionProps } from "./types.ts";

const OverviewQuery = graphql(`
  query ConsoleOverview($id: ID!, $hours: Int!) {
    deployment(id: $id) {
      id
      forwardingSettings { forwardingUrl status disabledReason statusChangedAt failingSince lastSuccessAt }
      deliveryStats(hours: $hours) {
        succeeded failed pending cancelled successRate p50Ms p95Ms oldestPendingAt queueDepth
        attempts attemptsSucceeded attemptsFailed attemptSuccessRate
        buckets { start succeeded failed p50Ms p95Ms attemptsSucceeded attemptsFailed }
      }
    }
  }
`);

const OverviewUpdates = graphql(`
  subscription ConsoleOverviewUpdates($deploymentId: ID!) { deliveryUpdates(deploymentId: $deploymentId) { id status } }
`);

const OverviewEvents = graphql(`
  subscription ConsoleOverviewEvents($deploymentId: ID!, $after: ID) { forwardedEvents(deploymentId: $deploymentId, after: $after) { id } }
`);

const PauseMutation = graphql(`
  mutation ConsolePauseForwarding($deploymentId: ID!) { pauseForwarding(deploymentId: $deploymentId) { status } }
`);

/** The windows offered: deliveryStats takes 1 to 168 hours. */
const RANGES = [
  { hours: 1, label: "Last hour" },
  { hours: 24, label: "Last 24 hours" },
  { hours: 24 * 7, label: "Last 7 days" },
] as const;

const percent = (rate: number | null | undefined) => (rate === null || rate === undefined ? "—" : `${(rate * 100).toFixed(1)} %`);

/**
 * The deployment at a glance: is forwarding on (a banner with the reason and Resume when it is
 * not), how deliveries did in the last 24 hours (per hour, by outcome), how fast the endpoint
 * answers, and how deep and old the queue is. deliveryStats is computed by the server; the live
 * subscriptions only say "something changed" and the numbers are read again (at most every 2 s).
 */
export function OverviewSection({ deploymentId, canManage, health }: SectionProps) {
  const [hours, setHours] = useState<number>(24);
  const [{ data, error, fetching }, refetch] = useQuery({ query: OverviewQuery, variables: { id: deploymentId, hours } });
  const reload = useMemo(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        refetch({ requestPolicy: "network-only" });
      }, 2000);
    };
  }, [refetch]);
  useSubscription({ query: OverviewUpdates, variables: { deploymentId } }, (_prev: number | undefined) => (reload(), Date.now()));
  useSubscription({ query: OverviewEvents, variables: { deploymentId } }, (_prev: number | undefined) => (reload(), Date.now()));
  const [pausing, pause] = useMutation(PauseMutation);
  const toast = useToast();
  const act = async (run: (variables: { deploymentId: string }) => Promise<{ error?: CombinedError }>, message: string) => {
    const result = await run({ deploymentId });
    if (result.error) return toast.error(describeError(result.error));
    toast.info(message);
    refetch({ requestPolicy: "network-only" });
    health.reload();
  };
  const range = RANGES.find((r) => r.hours === hours)!;

  const settings = data?.deployment?.forwardingSettings;
  const stats = data?.deployment?.deliveryStats;
  return (
    <section className="panel" aria-labelledby="overview-title">
      <div className="section-head">
        <h2 id="overview-title">Overview</h2>
        <label className="range push-right">
          <span>Time range</span>
          <select value={hours} onChange={(e) => setHours(Number(e.target.value))}>
            {RANGES.map((r) => (
              <option key={r.hours} value={r.hours}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        {canManage && settings?.status === "ACTIVE" && (
          <button type="button" className="button small" disabled={pausing.fetching} onClick={() => act(pause, "Forwarding paused: new deliveries are held.")}>
            Pause forwarding
          </button>
        )}
      </div>
      <ForwardingHealth health={health} deploymentId={deploymentId} canManage={canManage} />
      {error && !data && <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />}
      {fetching && !data && <Loading what="Loading delivery health" />}
      {data && !settings && <p className="muted">No Forwarding URL is saved yet: set one under Settings › Trigger Forwarding.</p>}
      {stats && (
        <>
          <dl className="tiles" aria-label={range.label}>
            <div data-testid="success-rate">
              <dt>Success rate</dt>
              <dd>{percent(stats.attemptSuccessRate)}</dd>
              <dd className="muted">
                {stats.attempts === 0
                  ? "no attempt in this window"
                  : `${stats.attemptsSucceeded} of ${stats.attempts} ${stats.attempts === 1 ? "attempt" : "attempts"} answered 2xx`}
              </dd>
            </div>
            <div data-testid="deliveries">
              <dt>Deliveries</dt>
              <dd>
                {stats.succeeded} succeeded · {stats.failed} failed
              </dd>
              <dd className="muted">{stats.pending} still retrying or held</dd>
            </div>
            <div data-testid="latency">
              <dt>Latency p50 / p95</dt>
              <dd>{stats.p50Ms === null || stats.p50Ms === undefined ? "—" : `${stats.p50Ms} / ${stats.p95Ms} ms`}</dd>
              <dd className="muted">how long your endpoint took to answer</dd>
            </div>
            <div data-testid="queue-depth">
              <dt>Queue</dt>
              <dd>{stats.queueDepth}</dd>
              <dd className="muted">{stats.oldestPendingAt ? `oldest waiting ${formatAge((Date.now() - Date.parse(stats.oldestPendingAt)) / 1000)}` : "nothing waiting"}</dd>
            </div>
          </dl>
          {stats.attempts === 0 ? (
            <p className="empty-chart" data-testid="charts-empty">
              No delivery attempt in the {range.label.toLowerCase()}: the charts appear once events are forwarded. Send a test event from Events to see one.
            </p>
          ) : (
            <div className="charts">
              <figure>
                <figcaption>Attempts per hour, by outcome</figcaption>
                <Chart
                  label="Attempts per hour"
                  buckets={stats.buckets}
                  series={[
                    // Drawn as stacked bars: "failed" on top of "succeeded".
                    { label: "Failed", stroke: "#c2372f", fill: "#c2372fcc", value: (b) => b.attemptsSucceeded + b.attemptsFailed, legend: (b) => b.attemptsFailed, bars: true },
                    { label: "Succeeded", stroke: "#1f7a4d", fill: "#1f7a4dcc", value: (b) => b.attemptsSucceeded, legend: (b) => b.attemptsSucceeded, bars: true },
                  ]}
                />
              </figure>
              <figure>
                <figcaption>Endpoint latency per hour (ms)</figcaption>
                <Chart
                  label="Latency per hour"
                  buckets={stats.buckets}
                  series={[
                    { label: "p50", stroke: "#2f5bd3", value: (b) => b.p50Ms ?? null, legend: (b) => b.p50Ms ?? null },
                    { label: "p95", stroke: "#8a5a00", value: (b) => b.p95Ms ?? null, legend: (b) => b.p95Ms ?? null },
                  ]}
                />
              </figure>
            </div>
          )}
        </>
      )}
    </section>
  );
}

type Bucket = NonNullable<ResultOf<typeof OverviewQuery>["deployment"]>["deliveryStats"]["buckets"][number];
type Series = { label: string; stroke: string; fill?: string; bars?: boolean; value(b: Bucket): number | null; legend(b: Bucket): number | null };

/** One uPlot chart over the hourly buckets; rebuilt when the numbers change (24 points: cheap). */
function Chart({ label, buckets, series }: { label: string; buckets: Bucket[]; series: Series[] }) {
  const box = useRef<HTMLDivElement>(null);
  const key = JSON.stringify(buckets);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const x = buckets.map((b) => Date.parse(b.start) / 1000);
    const bars = uPlot.paths.bars!({ size: [0.6, 40] });
    const plot = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height: 200,
        // Half an hour of room on each side, so the first and the current hour's bars are whole.
        scales: { x: { time: true, range: () => [x[0] - 1800, x[x.length - 1] + 1800] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{}, { size: 56 }],
        series: [
          {
            // Not "Time: --": the hour hovered, else the current one.
            label: "Hour",
            value: (_u: uPlot, _v: number | null, _series: number, index: number | null) => formatDate(buckets[index ?? buckets.length - 1]?.start),
          },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.stroke,
            fill: s.fill,
            width: s.bars ? 0 : 2,
            paths: s.bars ? bars : undefined,
            points: { show: !s.bars },
            spanGaps: true,
            value: (_u: uPlot, _v: number | null, _series: number, index: number | null) => {
              // Not hovering: the current hour.
              const shown = s.legend(buckets[index ?? buckets.length - 1]);
              return shown === null ? "—" : String(shown);
            },
          })),
        ],
      },
      [x, ...series.map((s) => buckets.map((b) => s.value(b)))],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, element.clientWidth), height: 200 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return <div ref={box} className="chart" role="img" aria-label={label} />;
}
