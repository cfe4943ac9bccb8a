from symrope.cli import main

raise SystemExit(main())
