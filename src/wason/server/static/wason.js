// wason's pages: a little JavaScript, no libraries. Pages add their own behaviour in their scripts block.
"use strict";
