// Types of `hashline/report`.
import type { TelemetryStats } from "../index.js"

/**
 * The report of what `telemetryStats` gives as one self-contained HTML page:
 * its plots drawn as SVG when it is made, no script, nothing fetched.
 */
export declare function statsReport(stats: TelemetryStats): string
