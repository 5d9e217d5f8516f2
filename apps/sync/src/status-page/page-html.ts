/** The status page's HTML: structure only; everything it shows comes from the JSON API through `/status.js`. */
export const statusHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sds-sync status</title>
<link rel="stylesheet" href="/status.css">
<script src="/status.js" defer></script>
</head>
<body>
<header>
  <h1>sds-sync</h1>
  <p id="summary" aria-live="polite">Loading…</p>
</header>
<form id="token-form" hidden>
  <p>This service requires its API token (<code>SYNC_API_TOKEN</code>). It stays in this tab only (session storage) and is sent as a Bearer token.</p>
  <label for="token">API token</label>
  <input id="token" name="token" type="password" autocomplete="current-password" required minlength="16">
  <button type="submit">Show status</button>
  <p id="token-error" role="alert"></p>
</form>
<main id="status" hidden>
  <section aria-labelledby="inventory-heading">
    <h2 id="inventory-heading">Inventory by language</h2>
    <table id="languages">
      <thead><tr><th scope="col">Language</th><th scope="col" class="number">Live</th><th scope="col" class="number">Closed</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section aria-labelledby="cycles-heading">
    <h2 id="cycles-heading">Recent cycles</h2>
    <div id="cycles-charts"></div>
    <table id="cycles">
      <thead><tr><th scope="col">Started</th><th scope="col">Outcome</th><th scope="col" class="number">Duration (ms)</th><th scope="col" class="number">Upstream requests</th><th scope="col" class="number">Changes</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section aria-labelledby="closures-heading">
    <h2 id="closures-heading">Held closures</h2>
    <p id="closures"></p>
  </section>
  <section aria-labelledby="quarantine-heading">
    <h2 id="quarantine-heading">Quarantine</h2>
    <p id="quarantine-summary"></p>
    <table id="quarantine">
      <thead><tr><th scope="col">Item</th><th scope="col">Source</th><th scope="col" class="number">Times seen</th><th scope="col">Last seen</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section aria-labelledby="feed-heading">
    <h2 id="feed-heading">Change feed</h2>
    <p id="feed-state" aria-live="polite"></p>
    <ol id="feed" reversed></ol>
  </section>
</main>
<footer><button id="forget" type="button" hidden>Forget the token</button></footer>
</body>
</html>
`;
