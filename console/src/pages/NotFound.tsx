import { Link } from "../router.tsx";

export function NotFound() {
  return (
    <section className="panel narrow">
      <h1>Page not found</h1>
      <p>There is no console page at this address.</p>
      <Link to="/organizations" className="button primary">
        Go to your organizations
      </Link>
    </section>
  );
}
