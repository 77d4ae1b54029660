import { silenceKafkajsTimerWarning } from '../../lib/cli/warnings.ts';

silenceKafkajsTimerWarning();
