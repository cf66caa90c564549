/* engine-post.js - closes the scope engine-pre.js opened (appended last), called with the
   global object: root for engine-load.js's export. Not a script on its own: not linted. */
})(typeof globalThis !== 'undefined' ? globalThis : this);
