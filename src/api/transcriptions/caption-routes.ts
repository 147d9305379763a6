import { buildCaptionCues } from '../../jobs/caption-cues.js';
import { CAPTION_CONTENT_TYPES, CAPTION_FORMATS, renderCaptions } from '../../jobs/caption-formats.js';
import type { JobService } from '../../jobs/job-service.js';
import { ApiError } from '../../platform/errors/api-error.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import { JobIdParams } from './transcription-schemas.js';
import { BEARER_READ } from '../route-access.js';

/** GET /v1/transcriptions/{job_id}/captions.vtt|.srt: caption files of any completed job (REST or WebSocket). */
export function captionRoutes(jobs: JobService): RouteDefinition[] {
  return CAPTION_FORMATS.map((format) =>
    defineRoute({
      method: 'GET',
      path: `/v1/transcriptions/{job_id}/captions.${format}`,
      operationId: format === 'vtt' ? 'getTranscriptionCaptionsVtt' : 'getTranscriptionCaptionsSrt',
      summary: format === 'vtt' ? 'Captions of a completed job as WebVTT' : 'Captions of a completed job as SubRip (SRT)',
      description:
        'Cues follow broadcast captioning rules: at most two lines of 42 characters, shown 5/6 s to 7 s, 80 ms apart, one speaker per cue. ' +
        "Cue times are the segments' word times (`words`, from the CTC alignment); a segment stored without words is timed by letters. " +
        'For a WebSocket session this is the same text as the `caption` messages it sent; a cue before a pause may be held longer here.',
      tags: ['Transcriptions'],
      ...BEARER_READ,
      params: JobIdParams,
      responses: {
        200: { description: 'The caption file', contentType: CAPTION_CONTENT_TYPES[format] },
        404: { description: 'job_not_found' },
        409: { description: 'job_not_completed' },
      },
      handler: async ({ params, principal, exchange }) => {
        const job = await jobs.getOwned(params.job_id, principal!.accountId);
        if (job.status !== 'completed') {
          throw new ApiError('job_not_completed', { message: `Job ${job.id} is ${job.status}; its captions are available once it has completed.` });
        }
        exchange.setHeader('Content-Disposition', `inline; filename="${job.id}.${format}"`);
        return { status: 200, body: renderCaptions(buildCaptionCues(job.segments ?? []), format) };
      },
    }),
  );
}
