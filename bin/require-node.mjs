// Plain JavaScript on purpose: it must run on any Node to tell an old one what to do.
// (npm start, npm test, serve, admin and bench go through bin/run.mjs, which gets Node 24 itself.)
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  console.error(
    `This project needs Node.js 24 LTS or newer; this is Node ${process.versions.node}.\n` +
      '`npm start` and `npm test` get it themselves (into ~/.node24); for ' +
      'this command, get it from the npm registry without root:\n' +
      '  npm i -g --prefix ~/.node24 node@24 && export PATH=~/.node24/bin:$PATH\n' +
      'then check `node -v` and run the command again.',
  );
  process.exit(1);
}
