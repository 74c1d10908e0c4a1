from kortbord.cli import main

raise SystemExit(main())
